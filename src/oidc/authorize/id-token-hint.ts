/**
 * id_token_hint (OIDC Core §3.1.2.1): an ID token we issued, naming the user the client expects.
 * Only signature and issuer count (it may have expired); an invalid hint is an invalid_request.
 */
import { OAuthError } from '../../../actors/index.js';
import type { Signer } from '../../crypto/signer.js';

const TEN_YEARS_S = 10 * 365 * 24 * 3600;

export async function checkIdTokenHint(signer: Signer, instanceId: string, issuer: string, hint: string | undefined): Promise<string | undefined> {
  if (hint === undefined) return undefined;
  try {
    const { payload } = await signer.verifyJwt(instanceId, hint, { issuer, clockToleranceSec: TEN_YEARS_S });
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new Error('no sub');
    return payload.sub;
  } catch (error) {
    throw new OAuthError('invalid_request', 'the id_token_hint is invalid', { cause: error });
  }
}
