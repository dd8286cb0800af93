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
