/**
 * PlatformFeatures against a started node: the first instance starts with
 * TESSERA_DEFAULT_FEATURES, flags are read and set partially, unknown flags are refused,
 * permissions (IAM_OWNER_VIEWER reads, cannot set), the organization context, and gRPC.
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformFeatures } from '../../src/gen/platform/settings/feature/v3alpha/feature_service_pb.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { readSetup, seedMachineUser } from './seed.fixture.js';

const PATH = '/settings/v3alpha/features';
const SYSTEM = { owner: { type: 'OWNER_TYPE_SYSTEM' } };

let node: TestNode;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  node = await startTestNode({ env: { TESSERA_DEFAULT_FEATURES: 'multitenancy_settings, login_v2' } });
  call = api(node);
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

describe('feature flags', () => {
  it('resolves every known flag; defaults come from TESSERA_DEFAULT_FEATURES; other stored flags are listed', async () => {
    const setup = await readSetup(node);
    const resolved = await call('GET', PATH);
    expect(resolved.status).toBe(200);
    expect(resolved.body.features).toEqual({
      multitenancy_resources_api: SYSTEM,
      multitenancy_settings: { value: true },
      token_exchange: SYSTEM,
      impersonation: SYSTEM,
      login_v2: { value: true },
    });
    expect(resolved.body.details).toMatchObject({ owner: { type: 'OWNER_TYPE_INSTANCE', id: setup.instanceId } });
    expect(BigInt(resolved.body.details.sequence)).toBeGreaterThan(0n);
  });

  it('sets flags partially; a set that changes nothing records nothing', async () => {
    const set = await call('PATCH', PATH, { token_exchange: true, multitenancy_resources_api: false });
    expect(set.status).toBe(200);
    const sequence = set.body.details.sequence;
    const after = (await call('GET', PATH)).body;
    expect(after.features).toMatchObject({
      token_exchange: { value: true },
      multitenancy_settings: { value: true }, // untouched
      impersonation: SYSTEM,
    });
    expect(after.features.multitenancy_resources_api).toEqual({}); // stored false: no owner, false omitted on the wire
    expect(after.details.sequence).toBe(sequence);

    const again = await call('PATCH', PATH, { token_exchange: true });
    expect(again.body.details.sequence).toBe(sequence);
    expect((await call('PATCH', PATH, {})).body.details.sequence).toBe(sequence);
    expect((await call('PATCH', PATH, { token_exchange: false })).status).toBe(200);
    expect((await call('GET', PATH)).body.features.token_exchange).toEqual({});
  });

  it('refuses unknown flags and non-boolean values with 400 naming the field, changing nothing', async () => {
    const before = (await call('GET', PATH)).body;
    const cases: [unknown, string][] = [
      [{ impersonation: true, warp_drive: true }, 'features.warp_drive'],
      [{ tokenExchange: true }, 'features.tokenExchange'], // flag names are snake_case, as in the config
      [{ impersonation: 'yes' }, 'features'],
      [['impersonation'], 'features'],
    ];
    for (const [body, field] of cases) {
      const response = await call('PATCH', PATH, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const violations = response.body.details.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
      expect(violations?.fieldViolations?.map((v: any) => v.field)).toContain(field);
    }
    expect((await call('GET', PATH)).body).toEqual(before);
  });

  it('lets IAM_OWNER_VIEWER read but not set (403), and anonymous callers neither (401)', async () => {
    const setup = await readSetup(node);
    const viewer = await seedMachineUser(node, {
      username: 'feature-viewer',
      memberships: [{ contextType: 'instance', contextId: setup.instanceId, roles: ['IAM_OWNER_VIEWER'] }],
    });
    const asViewer = api(node, viewer.token);
    expect((await asViewer('GET', PATH)).status).toBe(200);
    const denied = await asViewer('PATCH', PATH, { impersonation: true });
    expect(denied.status).toBe(403);
    expect(denied.body.details[0].id).toBe('auth.permission_denied');
    expect((await api(node, '')('GET', PATH)).status).toBe(401);
  });

  it('in an organization context: values are inherited from the instance; setting is refused', async () => {
    const setup = await readSetup(node);
    const inOrg = await call('GET', `${PATH}?ctx.orgId=${setup.orgId}`);
    expect(inOrg.status).toBe(200);
    expect(inOrg.body.features.multitenancy_settings).toEqual({ value: true, owner: { type: 'OWNER_TYPE_INSTANCE', id: setup.instanceId } });
    expect(inOrg.body.features.impersonation).toEqual(SYSTEM);
    const refused = await call('PATCH', `${PATH}?ctx.orgId=${setup.orgId}`, { impersonation: true });
    expect(refused.status).toBe(400);
    expect(refused.body.details[0].id).toBe('feature.instance_only');
  });

  it('answers over gRPC like over JSON', async () => {
    const client = createClient(PlatformFeatures, createGrpcTransport({ baseUrl: node.grpcUrl }));
    const headers = { authorization: `Bearer ${node.adminToken}` };
    await client.setFeatures({ features: { impersonation: true } }, { headers });
    const resolved = await client.resolveFeatures({}, { headers });
    expect(resolved.features.impersonation?.value).toBe(true);
    expect(resolved.features.multitenancy_settings?.value).toBe(true);
    expect(resolved.features.login_v2?.value).toBe(true);
    expect(resolved.features.multitenancy_resources_api?.owner).toBeUndefined();
  });
});
