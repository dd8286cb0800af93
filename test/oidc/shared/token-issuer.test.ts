/** The token issuer's `sid`: carried into the JWT access token, the refresh grant and its ID token when given. */
import { describe, expect, it } from 'vitest';
import type { Signer } from '../../../src/crypto/signer.js';
import { issueTokens, type IssueRequest } from '../../../src/oidc/shared/token-issuer.js';
import type { RefreshTokenRecord, TokenStore } from '../../../src/oidc/shared/token-store.js';

function fakeDeps() {
  const signed: Record<string, unknown>[] = [];
  const refreshes: RefreshTokenRecord[] = [];
  const signer: Pick<Signer, 'signJwt'> = {
    signJwt: async (_instanceId, payload) => {
      signed.push({ ...payload });
      return `jwt-${signed.length}`;
    },
  };
  const tokens: Pick<TokenStore, 'putAccessToken' | 'putRefreshToken'> = {
    putAccessToken: async () => undefined,
    putRefreshToken: async (_instanceId, _token, record) => {
      refreshes.push(record);
    },
  };
  const deps = {
    signer: signer as Signer,
    tokens: tokens as TokenStore,
    lifetimes: { accessMs: 3_600_000, idMs: 3_600_000, refreshMs: 86_400_000, refreshIdleMs: 3_600_000 },
  };
  return { deps, signed, refreshes };
}

const base: IssueRequest = {
  instanceId: 'i1',
  issuer: 'https://issuer.example',
  clientId: 'c1',
  sub: 'u1',
  aud: ['c1'],
  scope: ['openid'],
  accessTokenFormat: 'jwt',
  now: 1_800_000_000_000,
};

describe('token issuer sid', () => {
  it('puts sid into the JWT access token, the refresh grant and the ID token', async () => {
    const { deps, signed, refreshes } = fakeDeps();
    const issued = await issueTokens(deps, {
      ...base,
      sid: 's-123',
      idToken: { subject: { user: undefined, org: undefined } as never, aud: ['c1'], withUserinfo: false },
      refresh: { absoluteExpiresAt: base.now + 86_400_000 },
    });
    expect(issued.record.sid).toBe('s-123');
    expect(signed[0]).toMatchObject({ sub: 'u1', sid: 's-123' });
    expect(signed[1]).toMatchObject({ sub: 'u1', sid: 's-123' });
    expect(refreshes[0]?.sid).toBe('s-123');
  });

  it('has no sid without a browser session', async () => {
    const { deps, signed } = fakeDeps();
    await issueTokens(deps, base);
    expect(signed[0]).not.toHaveProperty('sid');
  });
});
