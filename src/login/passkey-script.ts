/**
 * /ui/login/passkey.js — the only script of the login UI, served from the login pages' origin
 * and referenced only by the passkey pages (every other page has `script-src 'none'`).
 * Hand-written (not @simplewebauthn/browser's source): base64url to bytes and back, the
 * WebAuthn ceremony, and its answer (JSON in the form's `credential` field) posted with the form.
 * A refusal or cancel posts `failed`, so the page shows the error with a new challenge.
 * - Forms with `data-passkey-options` sign in (navigator.credentials.get; passkey.ts).
 * - Forms with `data-passkey-create-options` create a passkey during the enrolment
 *   (navigator.credentials.create; passkey-enrolment.ts).
 */
import type { Route } from '../http/router.js';

export const PASSKEY_SCRIPT_PATH = '/ui/login/passkey.js';

const SCRIPT = `'use strict';
(() => {
  const toB64 = (buffer) => {
    let text = '';
    for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
    return btoa(text).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  };
  const toBytes = (b64) => Uint8Array.from(atob(b64.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  // The credential as the server reads it (AuthenticationResponseJSON / RegistrationResponseJSON): the ceremony's own response fields beside clientDataJSON.
  const asJson = (credential, response) => ({
    id: credential.id,
    rawId: toB64(credential.rawId),
    type: credential.type,
    clientExtensionResults: credential.getClientExtensionResults(),
    response: { clientDataJSON: toB64(credential.response.clientDataJSON), ...response },
  });
  const onSubmit = (selector, optionsKey, ceremony) => {
    for (const form of document.querySelectorAll(selector)) {
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        const options = JSON.parse(form.dataset[optionsKey]);
        const field = form.querySelector('input[name=credential]');
        try {
          field.value = JSON.stringify(await ceremony(options));
        } catch {
          field.value = 'failed';
        }
        // The button is named "submit", which shadows form.submit.
        HTMLFormElement.prototype.submit.call(form);
      });
    }
  };
  onSubmit('form[data-passkey-options]', 'passkeyOptions', async (options) => {
    const credential = await navigator.credentials.get({
      publicKey: {
        ...options,
        challenge: toBytes(options.challenge),
        allowCredentials: (options.allowCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })),
      },
    });
    const r = credential.response;
    return asJson(credential, {
      authenticatorData: toB64(r.authenticatorData),
      signature: toB64(r.signature),
      ...(r.userHandle ? { userHandle: toB64(r.userHandle) } : {}),
    });
  });
  onSubmit('form[data-passkey-create-options]', 'passkeyCreateOptions', async (options) => {
    const credential = await navigator.credentials.create({
      publicKey: {
        ...options,
        challenge: toBytes(options.challenge),
        user: { ...options.user, id: toBytes(options.user.id) },
        excludeCredentials: (options.excludeCredentials || []).map((c) => ({ ...c, id: toBytes(c.id) })),
      },
    });
    const r = credential.response;
    return asJson(credential, {
      attestationObject: toB64(r.attestationObject),
      ...(typeof r.getTransports === 'function' ? { transports: r.getTransports() } : {}),
    });
  });
})();
`;

/** GET /ui/login/passkey.js: the script above. */
export function passkeyScriptRoute(): Route {
  return {
    method: 'GET',
    pattern: PASSKEY_SCRIPT_PATH,
    handler: () => ({
      status: 200,
      headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' },
      body: SCRIPT,
    }),
  };
}
