/** The token endpoint's success body (RFC 6749 §5.1, OIDC Core §3.1.3.3, RFC 8693 §2.2.1). */
import type { IssuedTokens } from '../shared/token-issuer.js';

export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'Bearer' | 'N_A';
  readonly expires_in: number;
  readonly scope: string;
  readonly id_token?: string;
  readonly refresh_token?: string;
  readonly issued_token_type?: string;
}

export function toTokenResponse(issued: IssuedTokens): TokenResponse {
  const response: { -readonly [K in keyof TokenResponse]: TokenResponse[K] } = {
    access_token: issued.accessToken,
    token_type: 'Bearer',
    expires_in: issued.expiresIn,
    scope: issued.record.scope.join(' '),
  };
  // Set only when present (no spread of throwaway objects on the token path).
  if (issued.idToken !== undefined) response.id_token = issued.idToken;
  if (issued.refreshToken !== undefined) response.refresh_token = issued.refreshToken;
  return response;
}

/**
 * The JSON text of a token response, byte for byte what `JSON.stringify(response)` gives (same
 * key order, same escaping), written from constant fragments: the access token of the usual
 * reply (base64url or a compact JWS: nothing to escape) and the expiry are put in as they are,
 * only free text (scope, tokens of other shapes) goes through JSON.stringify. No generic
 * object walk per token reply.
 */
export function tokenResponseJson(response: TokenResponse): string {
  let text = `{"access_token":${jsonString(response.access_token)},"token_type":"${response.token_type}","expires_in":${JSON.stringify(response.expires_in)},"scope":${jsonString(response.scope)}`;
  if (response.id_token !== undefined) text += `,"id_token":${jsonString(response.id_token)}`;
  if (response.refresh_token !== undefined) text += `,"refresh_token":${jsonString(response.refresh_token)}`;
  if (response.issued_token_type !== undefined) text += `,"issued_token_type":${jsonString(response.issued_token_type)}`;
  return `${text}}`;
}

/** Characters a JSON string can hold as they are: base64url, `.` and the scope-token set less `"` and `\\`. */
const PLAIN = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;

function jsonString(value: string): string {
  return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
}
