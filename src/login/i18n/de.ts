/** German strings of the login UI. */
import type { Catalog } from './en.js';

export const de = {
  title: 'Anmelden',
  loginNameLabel: 'Loginname',
  loginNameIntro: 'Gib deinen Loginnamen ein.',
  next: 'Weiter',
  passwordLabel: 'Passwort',
  passwordIntro: 'Gib dein Passwort ein.',
  signIn: 'Anmelden',
  selectAccountTitle: 'Konto auswählen',
  selectAccountIntro: 'Wähle das Konto, mit dem du fortfahren möchtest.',
  otherAccount: 'Anderes Konto verwenden',
  registerTitle: 'Registrieren',
  registerUnavailable: 'Die Registrierung ist nicht verfügbar. Melde dich mit einem bestehenden Konto an.',
  userNotFound: 'Der Benutzer konnte nicht gefunden werden.',
  passwordInvalid: 'Das Passwort ist ungültig.',
  userLocked: 'Der Benutzer ist gesperrt. Wende dich an deinen Administrator.',
  userInactive: 'Der Benutzer ist nicht aktiv.',
  noPassword: 'Der Benutzer hat kein Passwort.',
  csrfInvalid: 'Das Formular ist abgelaufen. Bitte versuche es erneut.',
  errorTitle: 'Fehler',
  authRequestUnknown: 'Die Anmeldeanfrage ist unbekannt oder abgelaufen. Starte die Anmeldung erneut in der Anwendung.',
  clientInvalid: 'Die Anwendung ist unbekannt oder die Weiterleitungsadresse ist für sie nicht registriert.',
  requestInvalid: 'Die Anmeldeanfrage ist ungültig.',
  loggedOutTitle: 'Abgemeldet',
  loggedOut: 'Du bist abgemeldet.',
} as const satisfies Catalog;
