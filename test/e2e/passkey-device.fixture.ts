/**
 * A browser "device" with Chromium's virtual WebAuthn authenticator over CDP (ctap2, internal,
 * resident keys, user verification) and passkey enrolment through the users API — for suites
 * that sign in with passkeys (passkeys-browser.test.ts, login-policy-factors-browser.test.ts).
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestBrowser } from './browser.fixture.js';
import { api, type TestNode } from './harness.js';

export interface Device {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly cdp: CDPSession;
  readonly authenticatorId: string;
}

/** A new browser context with its own authenticator, on a page of the node's origin (the RP ID is its host). */
export async function newDevice(browser: TestBrowser, node: TestNode): Promise<Device> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  await page.goto(`${node.baseUrl}/ui/login/passkey.js`);
  return { context, page, cdp, authenticatorId };
}

/** navigator.credentials.create with the API's options; the answer as RegistrationResponseJSON. */
export async function createCredential(page: Page, options: unknown): Promise<unknown> {
  return page.evaluate(async (o: any) => {
    const { navigator } = globalThis as any;
    const bytes = (s: string) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
    const b64 = (b: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const credential = await navigator.credentials.create({
      publicKey: {
        ...o,
        challenge: bytes(o.challenge),
        user: { ...o.user, id: bytes(o.user.id) },
        excludeCredentials: (o.excludeCredentials ?? []).map((c: any) => ({ ...c, id: bytes(c.id) })),
      },
    });
    const r = credential.response;
    return {
      id: credential.id,
      rawId: b64(credential.rawId),
      type: credential.type,
      clientExtensionResults: credential.getClientExtensionResults(),
      response: { clientDataJSON: b64(r.clientDataJSON), attestationObject: b64(r.attestationObject), transports: r.getTransports() },
    };
  }, options);
}

/** Enrols a passkey of the user on the device through the users API; returns the passkey id. */
export async function enrolPasskey(node: TestNode, device: Device, userId: string, name = 'Laptop'): Promise<string> {
  const call = api(node);
  const started = await call('POST', `/resources/v3alpha/users/${userId}/passkeys`);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const options = started.body.publicKeyCredentialCreationOptions;
  expect(options.rp.id, 'the RP ID is the host of the instance origin').toBe(new URL(node.baseUrl).hostname);
  expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
  const publicKeyCredential = await createCredential(device.page, options);
  const verified = await call('POST', `/resources/v3alpha/users/${userId}/passkeys/${started.body.passkeyId}/_verify`, { publicKeyCredential, name });
  expect(verified.status, JSON.stringify(verified.body)).toBe(200);
  return started.body.passkeyId as string;
}
