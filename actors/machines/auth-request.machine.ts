/**
 * The authorization request as a state machine (OIDC Core §3.1.2.1 prompt / max_age /
 * login_hint / id_token_hint): which login step the browser is at, and when a code may be
 * issued. Pure: the edge passes the browser's sessions and the time in; actions only name
 * intents (`issueCode`, `rejectRequest`) that the edge performs after persisting the snapshot.
 */
import { and, assertEvent, assign, setup } from 'xstate';

export type AuthPrompt = 'none' | 'login' | 'select_account' | 'create';

/** A session of the user agent the request may reuse. */
export interface BrowserSessionSummary {
  readonly sessionId: string;
  readonly userId: string;
  /** Epoch ms of the last active authentication. */
  readonly authTime: number;
  readonly amr: readonly string[];
  /** The user's preferred login name (matched against login_hint). */
  readonly loginName?: string;
}

export interface AuthRequestInput {
  readonly prompt: readonly AuthPrompt[];
  /** Seconds (OIDC Core §3.1.2.1). */
  readonly maxAge?: number;
  readonly loginHint?: string;
  /** `sub` of a verified id_token_hint. */
  readonly hintUserId?: string;
  readonly sessions: readonly BrowserSessionSummary[];
  /** Epoch ms when the request was created (sessions older than max_age are not reusable). */
  readonly now: number;
}

export type AuthRequestFailure = 'login_required' | 'interaction_required' | 'account_selection_required';

export interface AuthRequestContext {
  readonly prompt: readonly AuthPrompt[];
  readonly loginHint: string | undefined;
  /** Reusable sessions: fresh enough for max_age and, with an id_token_hint, of that user. */
  readonly sessions: readonly BrowserSessionSummary[];
  readonly userId: string | undefined;
  readonly loginName: string | undefined;
  readonly session: BrowserSessionSummary | undefined;
  readonly failure: AuthRequestFailure | undefined;
  /** Epoch ms when the password was verified, while the second factor (TOTP) is awaited. */
  readonly passwordCheckedAt?: number;
  /** Epoch ms and IDP of an external login, when that was the first factor and the second is awaited. */
  readonly idpCheckedAt?: number;
  readonly idpId?: string;
  /**
   * A passwordless passkey the login policy does not count as multi-factor where MFA is forced:
   * the first factor (recorded on the user, no session yet), the code of a second is awaited.
   */
  readonly passkeyId?: string;
  readonly passkeyUserVerified?: boolean;
  /** The second factor the code page asks for (the user may switch among theirs). */
  readonly otpMethod?: OtpMethod;
}

/** A second factor the code page can ask for: a TOTP code, or a code sent by SMS or email. */
export type OtpMethod = 'totp' | 'sms' | 'email';

export type AuthRequestEvent =
  | { readonly type: 'loginName.submitted'; readonly userId: string; readonly loginName: string }
  | { readonly type: 'password.verified'; readonly session: BrowserSessionSummary }
  /** The password was right and the user has a verified TOTP: the code is asked next (no session yet). */
  | { readonly type: 'otp.required'; readonly passwordCheckedAt: number; readonly method?: OtpMethod }
  /** An external login resolved a user with a second factor: the code is asked next (no session yet). */
  | {
      readonly type: 'external.otp.required';
      readonly userId: string;
      readonly loginName: string;
      readonly idpId: string;
      readonly idpCheckedAt: number;
      readonly method: OtpMethod;
    }
  /** The user switched the code page to another of their second factors. */
  | { readonly type: 'otp.method.selected'; readonly method: OtpMethod }
  /** The password was right, a second factor is forced and the user has none: enrolment is next (no session yet). */
  | { readonly type: 'mfa.enrolment.required'; readonly passwordCheckedAt: number }
  /** The edge accepted the TOTP code (or the code of a second factor just enrolled) and created a session with both checks. */
  | { readonly type: 'otp.verified'; readonly session: BrowserSessionSummary }
  | { readonly type: 'account.selected'; readonly sessionId: string }
  | { readonly type: 'account.other' }
  /** The login name page's "register" link. */
  | { readonly type: 'registration.requested' }
  /** The edge created the user; a second factor is forced: enrolment is next (no session yet). */
  | { readonly type: 'registration.mfa.required'; readonly userId: string; readonly loginName: string; readonly passwordCheckedAt: number }
  /** The edge created the user and a password-checked session for it. */
  | { readonly type: 'registration.completed'; readonly userId: string; readonly loginName: string; readonly session: BrowserSessionSummary }
  /** The edge finished an external login (IDP): the user it resolved and a session for it. */
  | { readonly type: 'external.completed'; readonly userId: string; readonly loginName: string; readonly session: BrowserSessionSummary }
  /** The edge accepted the email / phone verification code the login was held for (awaitingVerification). */
  | { readonly type: 'verification.completed' }
  /** The login name page's "Sign in with a passkey": passwordless, the passkey names the user. */
  | { readonly type: 'passkey.requested' }
  /**
   * Passwordless: the edge verified the passkey, but the login policy does not count it as
   * multi-factor and MFA is forced: the code of an allowed second factor is asked next (no session yet).
   */
  | {
      readonly type: 'passkey.otp.required';
      readonly userId: string;
      readonly loginName: string;
      readonly passkeyId: string;
      readonly userVerified: boolean;
      readonly method: OtpMethod;
    }
  /** The edge verified a passkey assertion (passwordless, or as the second factor) and created a session. */
  | { readonly type: 'passkey.verified'; readonly userId: string; readonly loginName: string; readonly session: BrowserSessionSummary };

/** Version of the persisted snapshot shape; bump when context or states change incompatibly. */
export const AUTH_REQUEST_SNAPSHOT_VERSION = 1;

function reusableSessions(input: AuthRequestInput): BrowserSessionSummary[] {
  const maxAgeMs = input.maxAge === undefined ? undefined : input.maxAge * 1000;
  return input.sessions.filter(
    (s) => (maxAgeMs === undefined || input.now - s.authTime <= maxAgeMs) && (input.hintUserId === undefined || s.userId === input.hintUserId),
  );
}

const has = (context: AuthRequestContext, prompt: AuthPrompt): boolean => context.prompt.includes(prompt);

function hintedSession(context: AuthRequestContext): BrowserSessionSummary | undefined {
  const hint = context.loginHint?.toLowerCase();
  return hint === undefined ? undefined : context.sessions.find((s) => s.loginName?.toLowerCase() === hint);
}

export const authRequestMachine = setup({
  types: {
    input: {} as AuthRequestInput,
    context: {} as AuthRequestContext,
    events: {} as AuthRequestEvent,
  },
  actions: {
    // Intents: the edge issues the code / sends the error after the snapshot is persisted.
    issueCode: () => undefined,
    rejectRequest: () => undefined,
    pickOnlySession: assign({ session: ({ context }) => context.sessions[0] }),
    pickHintedSession: assign({ session: ({ context }) => hintedSession(context) }),
    fail: assign({ failure: (_, params: { failure: AuthRequestFailure }) => params.failure }),
    awaitExternalOtp: assign(({ event }) => {
      assertEvent(event, 'external.otp.required');
      return { userId: event.userId, loginName: event.loginName, idpId: event.idpId, idpCheckedAt: event.idpCheckedAt, otpMethod: event.method, passwordCheckedAt: undefined };
    }),
    awaitPasskeyOtp: assign(({ event }) => {
      assertEvent(event, 'passkey.otp.required');
      return {
        userId: event.userId,
        loginName: event.loginName,
        passkeyId: event.passkeyId,
        passkeyUserVerified: event.userVerified,
        otpMethod: event.method,
        passwordCheckedAt: undefined,
        idpCheckedAt: undefined,
        idpId: undefined,
      };
    }),
    takeExternalLogin: assign(({ event }) => {
      assertEvent(event, 'external.completed');
      return { userId: event.userId, loginName: event.loginName, session: event.session };
    }),
    takePasskeyLogin: assign(({ event }) => {
      assertEvent(event, 'passkey.verified');
      return { userId: event.userId, loginName: event.loginName, session: event.session, passwordCheckedAt: undefined, idpCheckedAt: undefined, idpId: undefined, otpMethod: undefined };
    }),
  },
  guards: {
    isPromptNone: ({ context }) => has(context, 'none'),
    isPromptLogin: ({ context }) => has(context, 'login'),
    isPromptCreate: ({ context }) => has(context, 'create'),
    isPromptSelectAccount: ({ context }) => has(context, 'select_account'),
    hasOneSession: ({ context }) => context.sessions.length === 1,
    hasSessions: ({ context }) => context.sessions.length > 0,
    hasHintedSession: ({ context }) => hintedSession(context) !== undefined,
    isKnownSession: ({ context, event }) => {
      assertEvent(event, 'account.selected');
      return context.sessions.some((s) => s.sessionId === event.sessionId);
    },
  },
}).createMachine({
  id: 'authRequest',
  context: ({ input }) => ({
    prompt: input.prompt,
    loginHint: input.loginHint,
    sessions: reusableSessions(input),
    userId: undefined,
    loginName: undefined,
    session: undefined,
    failure: undefined,
  }),
  initial: 'created',
  states: {
    created: {
      always: [
        { guard: 'isPromptCreate', target: 'registering' },
        { guard: 'isPromptLogin', target: 'awaitingLoginName' },
        { guard: 'isPromptSelectAccount', target: 'selectingAccount' },
        { guard: 'hasOneSession', target: 'succeeded', actions: ['pickOnlySession', 'issueCode'] },
        // prompt=none cannot ask which account: login_hint may name one (OIDC Core §3.1.2.1).
        { guard: and(['isPromptNone', 'hasHintedSession']), target: 'succeeded', actions: ['pickHintedSession', 'issueCode'] },
        {
          guard: and(['isPromptNone', 'hasSessions']),
          target: 'failed',
          actions: [{ type: 'fail', params: { failure: 'account_selection_required' } }, 'rejectRequest'],
        },
        { guard: 'isPromptNone', target: 'failed', actions: [{ type: 'fail', params: { failure: 'login_required' } }, 'rejectRequest'] },
        { guard: 'hasSessions', target: 'selectingAccount' },
        { target: 'awaitingLoginName' },
      ],
    },
    awaitingLoginName: {
      on: {
        'loginName.submitted': {
          target: 'awaitingPassword',
          actions: assign({ userId: ({ event }) => event.userId, loginName: ({ event }) => event.loginName }),
        },
        'registration.requested': { target: 'registering' },
        'external.completed': { target: 'succeeded', actions: ['takeExternalLogin', 'issueCode'] },
        'external.otp.required': { target: 'awaitingOtp', actions: 'awaitExternalOtp' },
        'passkey.requested': { target: 'awaitingPasskey' },
      },
    },
    // Passwordless: the page asks the browser for a discoverable passkey; its user logs in.
    awaitingPasskey: {
      on: {
        'passkey.verified': { target: 'succeeded', actions: ['takePasskeyLogin', 'issueCode'] },
        'passkey.otp.required': { target: 'awaitingOtp', actions: 'awaitPasskeyOtp' },
        'account.other': { target: 'awaitingLoginName' },
      },
    },
    awaitingPassword: {
      on: {
        'password.verified': { target: 'succeeded', actions: [assign({ session: ({ event }) => event.session }), 'issueCode'] },
        'otp.required': {
          target: 'awaitingOtp',
          actions: assign({ passwordCheckedAt: ({ event }) => event.passwordCheckedAt, otpMethod: ({ event }) => event.method ?? 'totp' }),
        },
        'mfa.enrolment.required': { target: 'enrollingMfa', actions: assign({ passwordCheckedAt: ({ event }) => event.passwordCheckedAt }) },
        // The login name page's IDP buttons stay reachable with the browser's back button.
        'external.completed': { target: 'succeeded', actions: ['takeExternalLogin', 'issueCode'] },
        'external.otp.required': { target: 'awaitingOtp', actions: 'awaitExternalOtp' },
        // "Not you?": back to the login name.
        'account.other': { target: 'awaitingLoginName' },
      },
    },
    // Second factor: the password (or an external login) was verified; a session is created only
    // with the code of a second factor (TOTP, or one sent by SMS or email; the user may switch) or
    // with a passkey of the user.
    awaitingOtp: {
      on: {
        'otp.verified': { target: 'succeeded', actions: [assign({ session: ({ event }) => event.session }), 'issueCode'] },
        'otp.method.selected': { actions: assign({ otpMethod: ({ event }) => event.method }) },
        'passkey.verified': { target: 'succeeded', actions: ['takePasskeyLogin', 'issueCode'] },
        'account.other': {
          target: 'awaitingLoginName',
          actions: assign({
            passwordCheckedAt: () => undefined,
            idpCheckedAt: () => undefined,
            idpId: () => undefined,
            otpMethod: () => undefined,
            passkeyId: () => undefined,
            passkeyUserVerified: () => undefined,
          }),
        },
      },
    },
    // A forced second factor the user does not have yet (login policy): set one up, then its code finishes the login.
    enrollingMfa: {
      on: {
        'otp.verified': { target: 'succeeded', actions: [assign({ session: ({ event }) => event.session }), 'issueCode'] },
        'account.other': { target: 'awaitingLoginName', actions: assign({ passwordCheckedAt: () => undefined }) },
      },
    },
    selectingAccount: {
      always: [
        // prompt=none cannot show a picker (OIDC Core §3.1.2.6).
        { guard: 'isPromptNone', target: 'failed', actions: [{ type: 'fail', params: { failure: 'account_selection_required' } }, 'rejectRequest'] },
      ],
      on: {
        'account.selected': {
          guard: 'isKnownSession',
          target: 'succeeded',
          actions: [assign({ session: ({ context, event }) => context.sessions.find((s) => s.sessionId === event.sessionId) }), 'issueCode'],
        },
        'account.other': { target: 'awaitingLoginName' },
      },
    },
    // prompt=create or the register link: the edge validates the form, creates the user and a
    // password-checked session, then reports it; the code is issued like after a password.
    registering: {
      always: [{ guard: 'isPromptNone', target: 'failed', actions: [{ type: 'fail', params: { failure: 'interaction_required' } }, 'rejectRequest'] }],
      on: {
        'registration.completed': {
          target: 'succeeded',
          actions: [assign({ userId: ({ event }) => event.userId, loginName: ({ event }) => event.loginName, session: ({ event }) => event.session }), 'issueCode'],
        },
        'registration.mfa.required': {
          target: 'enrollingMfa',
          actions: assign({ userId: ({ event }) => event.userId, loginName: ({ event }) => event.loginName, passwordCheckedAt: ({ event }) => event.passwordCheckedAt }),
        },
        'account.other': { target: 'awaitingLoginName' },
      },
    },
    // The edge held the login before the code (src/login/contact-verification-gate.ts): the
    // session is in the context; the code is issued once the address is verified.
    awaitingVerification: {
      on: {
        'verification.completed': { target: 'succeeded', actions: ['issueCode'] },
        'account.other': { target: 'awaitingLoginName', actions: assign({ session: () => undefined, passwordCheckedAt: () => undefined }) },
      },
    },
    succeeded: { type: 'final' },
    failed: { type: 'final' },
  },
});

/** The state names the login UI renders. */
export type AuthRequestStep =
  | 'created'
  | 'awaitingLoginName'
  | 'awaitingPassword'
  | 'awaitingOtp'
  | 'awaitingPasskey'
  | 'enrollingMfa'
  | 'selectingAccount'
  | 'registering'
  | 'awaitingVerification'
  | 'succeeded'
  | 'failed';
