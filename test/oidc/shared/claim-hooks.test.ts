/**
 * The OIDC side of function executions: without an execution the claims come back as the same
 * object, synchronously, and the runner is never asked to run (the hot path); with one, the
 * payload of reference facts §3.4 is sent and the outcome's claims are added; a plan that is
 * still loading is awaited.
 */
import { describe, expect, it } from 'vitest';
import type { ActorSystem, AggregateRecord, MachineUser } from '../../../actors/index.js';
import type { ExecutionFunction } from '../../../src/executions/catalog.js';
import type { FunctionOutcome, FunctionPayload } from '../../../src/executions/functions.js';
import { createClaimHooks, type FunctionRunner, NO_CLAIM_HOOKS } from '../../../src/oidc/shared/claim-hooks.js';
import type { ClaimSubject } from '../../../src/oidc/shared/claims.js';

const user: AggregateRecord<MachineUser> = {
  id: 'u1',
  meta: { version: 3, sequence: 7, createdAt: 0, changedAt: 1_000, owner: { type: 'org', id: 'o1' } },
  state: { type: 'machine', orgId: 'o1', username: 'bot', state: 'active', metadata: [{ key: 'k', value: 'dg==' }], usernameInstanceWide: false, name: 'Bot', description: '', accessTokenType: 'jwt', tokens: [], keys: [], secretDigest: '' },
};
const subject: ClaimSubject = { user, org: undefined };
const actors = { readRecord: async () => undefined } as unknown as ActorSystem; // no grants; the subject is given

function runner(has: boolean | Promise<boolean>, outcome: FunctionOutcome = { claims: { tier: 'gold' }, userMetadata: [] }) {
  const runs: { name: ExecutionFunction; payload: FunctionPayload }[] = [];
  const fake: FunctionRunner = {
    hasFunction: () => has,
    runFunction: async (_instance, name, payload) => {
      runs.push({ name, payload });
      return outcome;
    },
  };
  return { fake, runs };
}

const call = { instanceId: 'i1', clientId: 'c1', subject };

describe('claim hooks', () => {
  it('returns the same claims synchronously when the instance has no execution', () => {
    const { fake, runs } = runner(false);
    const claims = { sub: 'u1' };
    expect(createClaimHooks(actors, fake).apply('preaccesstoken', call, claims)).toBe(claims);
    expect(NO_CLAIM_HOOKS.apply('preuserinfo', call, claims)).toBe(claims);
    expect(createClaimHooks(actors, undefined)).toBe(NO_CLAIM_HOOKS);
    expect(runs).toHaveLength(0);
  });

  it('runs the function with the reference payload and adds its claims', async () => {
    const { fake, runs } = runner(true);
    const result = await createClaimHooks(actors, fake).apply('preuserinfo', call, { sub: 'u1' });
    expect(result).toEqual({ sub: 'u1', tier: 'gold' });
    expect(runs[0]!.name).toBe('preuserinfo');
    expect(runs[0]!.payload).toMatchObject({
      userinfo: { sub: 'u1' },
      user: { id: 'u1', username: 'bot', resource_owner: 'o1', sequence: 7, machine: { name: 'Bot', access_token_type: 1 } },
      user_metadata: [{ key: 'k', value: 'dg==', resource_owner: 'o1' }],
      application: { client_id: 'c1' },
    });
  });

  it('waits for a plan that is still loading', async () => {
    const { fake, runs } = runner(Promise.resolve(false));
    const claims = { sub: 'u1' };
    expect(await createClaimHooks(actors, fake).apply('preaccesstoken', call, claims)).toBe(claims);
    expect(runs).toHaveLength(0);
    const loading = runner(Promise.resolve(true));
    expect(await createClaimHooks(actors, loading.fake).apply('preaccesstoken', call, claims)).toEqual({ sub: 'u1', tier: 'gold' });
  });
});
