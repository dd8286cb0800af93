/**
 * Function conditions (reference facts §3.4): the answer rules as pure functions, and
 * runFunction end to end against real targets on 127.0.0.1 with a real store (the OIDC token
 * endpoint that will call it does not exist yet).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ActorSystem,
  AppError,
  createIdGenerator,
  createTarget,
  putExecution,
  systemClock,
  UNIQUE_SCOPES,
  type CreateTarget,
  type StoreAdapter,
} from '../../actors/index.js';
import { createSecretSealer } from '../../src/crypto/secret-sealer.js';
import { applyFunctionAnswer, mergeAnswers } from '../../src/executions/functions.js';
import { ExecutionRuntime } from '../../src/executions/runtime.js';
import { verifySignature } from '../../src/executions/signature.js';
import { openLmdbStore } from '../../src/store/lmdb-store.js';
import { startTargetServer, type TargetServer } from '../e2e/targets.fixture.js';
import { suiteTempDirs } from '../temp-dirs.js';

describe('answer rules', () => {
  it('lets a later answer replace an earlier list for the same key', () => {
    const merged = mergeAnswers([
      { append_claims: [{ key: 'a', value: 1 }], append_log_claims: ['first'] },
      { append_claims: [{ key: 'b', value: 2 }] },
      'not an object',
    ]);
    expect(merged).toEqual({ append_claims: [{ key: 'b', value: 2 }], append_log_claims: ['first'] });
  });

  it('adds claims without overriding, ignores reserved ones and logs', () => {
    const outcome = applyFunctionAnswer(
      'preaccesstoken',
      { sub: 'u1', email: 'a@example.com' },
      {
        append_claims: [
          { key: 'tenant', value: { id: 7 } },
          { key: 'email', value: 'evil@example.com' },
          { key: 'urn:platform:iam:org:id', value: 'x' },
          { key: 'tenant', value: 'again' },
        ],
        append_log_claims: ['hello'],
        set_user_metadata: [{ key: 'k', value: 'dg==' }],
      },
    );
    expect(outcome).toEqual({
      claims: {
        tenant: { id: 7 },
        'urn:platform:iam:action:preaccesstoken:log': ['hello', 'key "email" already exists', 'key "tenant" already exists'],
      },
      userMetadata: [{ key: 'k', value: 'dg==' }],
    });
  });

  it('adds no log claim when there is nothing to log', () => {
    expect(applyFunctionAnswer('preuserinfo', {}, {}).claims).toEqual({});
  });
});

describe('runFunction', () => {
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  let dir: string;
  const newDir = suiteTempDirs('tessera-fn-');
  let store: StoreAdapter;
  let actors: ActorSystem;
  let runtime: ExecutionRuntime;
  let server: TargetServer;
  const instance = { kind: 'instance', instanceId: 'i1' } as const;
  const keys = new Map<string, string>();

  async function addTarget(id: string, path: string, extra: Partial<CreateTarget> = {}) {
    const signingKey = `key-${id}`.padEnd(36, 'x');
    keys.set(path, signingKey);
    await actors.ask(instance, createTarget, { targetId: id, name: id, targetType: 'rest_request_response', url: server.url(path), timeoutNanos: 2e9, executionType: 'none', signingKey, ...extra }, { creator: 'u' });
  }

  beforeAll(async () => {
    dir = newDir();
    store = openLmdbStore({ path: dir, noSync: true });
    actors = new ActorSystem({ store, clock: systemClock, ids: createIdGenerator(() => Date.now()), sealer: createSecretSealer(randomBytes(32)), logger: silent, uniqueScopes: UNIQUE_SCOPES });
    // The targets listen on 127.0.0.1: private networks allowed (test/executions/target-network.test.ts covers the default).
    runtime = new ExecutionRuntime({ actors, store, clock: systemClock, logger: silent, network: { allowPrivateNetworks: true } });
    server = await startTargetServer();
    server.on('/claims', () => ({ body: { append_claims: [{ key: 'department', value: 'R&D' }, { key: 'sub', value: 'override' }], append_log_claims: ['from claims'] } }));
    server.on('/webhook', () => ({ body: { append_claims: [{ key: 'ignored', value: true }] } }));
    server.on('/failing', () => ({ status: 500 }));
    await addTarget('t-claims', '/claims');
    await addTarget('t-webhook', '/webhook', { targetType: 'rest_webhook' });
    await addTarget('t-failing', '/failing');
    await addTarget('t-fatal', '/failing-fatal', { executionType: 'interrupt' });
    server.on('/failing-fatal', () => ({ status: 503 }));
    await actors.ask(instance, putExecution, { condition: { type: 'function', match: 'function', value: 'preaccesstoken' }, targets: ['t-webhook', 't-failing', 't-claims'], includes: [] }, { creator: 'u' });
    await actors.ask(instance, putExecution, { condition: { type: 'function', match: 'function', value: 'preuserinfo' }, targets: ['t-fatal'], includes: [] }, { creator: 'u' });
  });

  afterAll(async () => {
    await runtime.stop();
    await server.close();
    await actors.stop();
    await store.close();
  });

  it('posts the payload to each target and applies the answers of request_response targets', async () => {
    const outcome = await runtime.runFunction('i1', 'preaccesstoken', { userinfo: { sub: 'u1' }, application: { client_id: 'c1' } });
    expect(outcome.claims).toEqual({
      department: 'R&D',
      'urn:platform:iam:action:preaccesstoken:log': ['from claims', 'key "sub" already exists'],
    });
    const [call] = server.callsTo('/claims');
    expect(call?.json).toEqual({ function: 'function/preaccesstoken', userinfo: { sub: 'u1' }, application: { client_id: 'c1' } });
    const now = Math.floor(Date.now() / 1000);
    expect(verifySignature(String(call?.headers['platform-signature']), call!.body, keys.get('/claims')!, now)).toBe(true);
    expect(server.callsTo('/webhook')).toHaveLength(1); // called, its body ignored
    expect(server.callsTo('/failing')).toHaveLength(1); // failed, logged, not fatal
  });

  it('rejects when an interrupt_on_error target fails', async () => {
    const error = await runtime.runFunction('i1', 'preuserinfo', { userinfo: { sub: 'u1' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('execution.failed');
  });
});
