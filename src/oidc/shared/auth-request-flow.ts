/**
 * Performs what an auth-request machine transition intends, after deciding it (style §4):
 * `issueCode` stores a single-use code and sends the authorization response; `rejectRequest`
 * sends the machine's error (login_required, ...) to the redirect URI; otherwise the snapshot
 * is persisted and the browser goes to the login page that renders the current step.
 */
import { OAuthError, type BrowserSessionSummary } from '../../../actors/index.js';
import type { HttpReply } from '../../http/types.js';
import { issueImplicitResponse } from './implicit-response.js';
import type { AuthFlowDeps } from './auth-flow-deps.js';
import { chooseLanguage, createTranslator } from '../../i18n/index.js';
import { renderErrorPage } from '../../login/pages.js';
import { holdForVerification } from './contact-verification-gate.js';
import { takeAuthRequest, saveAuthRequest, toPersistedMachine, type AuthMachineSnapshot, type StoredAuthRequest } from './auth-requests.js';
import { issueAuthorizationCode } from './authorization-codes.js';
import { toAuthorizationError, toAuthorizationResponse, type ResponseTarget } from './authorization-response.js';

export const LOGIN_PATH = '/ui/login/login';

export interface MachineStep {
  readonly snapshot: AuthMachineSnapshot;
  readonly actions: readonly { readonly type: string }[];
}


export function loginPageUrl(authRequestId: string): string {
  return `${LOGIN_PATH}?authRequest=${encodeURIComponent(authRequestId)}`;
}

export function responseTargetOf(stored: StoredAuthRequest): ResponseTarget {
  const { redirectUri, responseMode, state } = stored.request;
  return { redirectUri, responseMode, issuer: stored.issuer, ...(state === undefined ? {} : { state }) };
}

function withHeaders(reply: HttpReply, headers: Readonly<Record<string, string>>): HttpReply {
  return { ...reply, headers: { ...reply.headers, ...headers } };
}

/**
 * Carries out the step's intents and returns the browser's next reply. `saved`: false for a
 * request the authorization endpoint has just built (not in the table yet); `bindingCookie`: the
 * browser binding it sets when the browser goes on to the login page.
 */
export async function settleAuthRequest(
  deps: AuthFlowDeps,
  instanceId: string,
  stored: StoredAuthRequest,
  step: MachineStep,
  headers: Readonly<Record<string, string>> = {},
  options: { readonly saved: boolean; readonly bindingCookie?: string } = { saved: true },
): Promise<HttpReply> {
  const intents = new Set(step.actions.map((a) => a.type));
  const context = step.snapshot.context;
  const target = responseTargetOf(stored);
  // `issueCode` is the intent to answer the client: a code, or the implicit tokens.
  if (intents.has('issueCode') && context.session !== undefined) {
    // A required email / phone verification holds the login before the code (issue 14).
    const held = await holdForVerification(deps, instanceId, step.snapshot, context.session);
    if (held !== undefined) return settleAuthRequest(deps, instanceId, stored, held, headers, options);
    // The atomic take is the gate: a concurrent step of the same request that took it first wins.
    if (options.saved && !(await takeAuthRequest(deps.ttl, instanceId, stored.id))) return alreadySettled(stored);
    try {
      const params = stored.request.responseType === 'code' ? { code: await storeCode(deps, instanceId, stored, context.session) } : await issueImplicitResponse(deps, instanceId, stored, context.session);
      return withHeaders(toAuthorizationResponse(target, params), headers);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      return withHeaders(toAuthorizationError(target, new OAuthError('access_denied', 'the login cannot be completed', { cause: error })), headers);
    }
  }
  if (intents.has('rejectRequest')) {
    if (options.saved && !(await takeAuthRequest(deps.ttl, instanceId, stored.id))) return alreadySettled(stored);
    const failure = context.failure ?? 'interaction_required';
    return withHeaders(toAuthorizationError(target, new OAuthError(failure, 'the user must log in interactively')), headers);
  }
  await saveAuthRequest(deps.ttl, instanceId, { ...stored, machine: toPersistedMachine(step.snapshot) });
  const binding: Record<string, string> = options.bindingCookie === undefined ? {} : { 'set-cookie': options.bindingCookie };
  return { status: 303, headers: { location: loginPageUrl(stored.id), 'cache-control': 'no-store', ...binding, ...headers } };
}

/** Another step of the same request settled it first (a double submit, a concurrent replay). */
function alreadySettled(stored: StoredAuthRequest): HttpReply {
  return renderErrorPage(createTranslator(chooseLanguage(stored.request.uiLocales, undefined)), 'authRequestUnknown', 409);
}

function storeCode(deps: AuthFlowDeps, instanceId: string, stored: StoredAuthRequest, session: BrowserSessionSummary): Promise<string> {
  const { request } = stored;
  return issueAuthorizationCode(deps.ttl, instanceId, {
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    ...(request.codeChallenge === undefined ? {} : { codeChallenge: request.codeChallenge }),
    ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
    scopes: request.scopes,
    userId: session.userId,
    sessionId: session.sessionId,
    authTime: session.authTime,
    amr: session.amr,
    issuedAt: deps.clock.now(),
  });
}
