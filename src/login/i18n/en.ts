/** English strings of the login UI (the reference catalog: every other one has the same keys). */
export const en = {
  title: 'Sign in',
  loginNameLabel: 'Login name',
  loginNameIntro: 'Enter your login name.',
  next: 'Next',
  passwordLabel: 'Password',
  passwordIntro: 'Enter your password.',
  signIn: 'Sign in',
  selectAccountTitle: 'Select an account',
  selectAccountIntro: 'Choose the account to continue with.',
  otherAccount: 'Use another account',
  registerTitle: 'Register',
  registerUnavailable: 'Registration is not available. Sign in with an existing account.',
  userNotFound: 'The user could not be found.',
  passwordInvalid: 'The password is invalid.',
  userLocked: 'The user is locked. Contact your administrator.',
  userInactive: 'The user is not active.',
  noPassword: 'The user has no password.',
  csrfInvalid: 'The form expired. Please try again.',
  errorTitle: 'Error',
  authRequestUnknown: 'The login request is unknown or has expired. Start the login again from the application.',
  clientInvalid: 'The application is unknown or the redirect address is not registered for it.',
  requestInvalid: 'The login request is invalid.',
  loggedOutTitle: 'Signed out',
  loggedOut: 'You are signed out.',
} as const;

export type MessageKey = keyof typeof en;
export type Catalog = Readonly<Record<MessageKey, string>>;
