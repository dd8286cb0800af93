/**
 * PlatformEvents.SearchEvents (docs/api/events.md) against a started node, with data created
 * through the API: events by aggregate, type (and group), creator and time range; cursor paging
 * in both directions without overlap; `events.read` required (403 with a positive control);
 * Connect, gRPC-web and the gRPC port; secret digests redacted; another instance's admin sees none of
 * this instance's events (positive control in the owning instance); bad input → 400 naming the
 * field.
 */
import { createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenDigest } from '../../src/crypto/token-digest.js';
import { PlatformEvents } from '../../src/gen/platform/resources/event/v3alpha/event_service_pb.js';
import { api, startTestNode, violatedFields, type TestNode } from './harness.js';
import { createSystemUserKey, systemApi, systemUsersEnv } from './system-user.fixture.js';

const R = '/resources/v3alpha';
const SEARCH = `${R}/events/_search`;

let node: TestNode;
let auditorId: string;
let auditorToken: string;
let orgId: string;
let botId: string;
let botSecret: string;
let sys: ReturnType<typeof systemApi>;

type Call = ReturnType<typeof api>;
type WireEvent = {
  position: string;
  aggregateType: string;
  aggregateId: string;
  sequence: string;
  eventType: string;
  creator: string;
  creationDate: string;
  resourceOwner: { type: string; id?: string };
  payload: Record<string, unknown>;
  redactedFields?: string[];
};

/** A machine user with a personal access token and (optionally) an instance membership. */
async function machineWithToken(admin: Call, username: string, roles: readonly string[]): Promise<{ id: string; token: string }> {
  const created = await admin('POST', `${R}/users`, { machine: { username, name: username } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id: string = created.body.details.id;
  if (roles.length > 0) {
    const member = await admin('POST', `${R}/memberships`, { instance: true, userId: id, roles });
    expect(member.status, JSON.stringify(member.body)).toBe(201);
  }
  const pat = await admin('POST', `${R}/users/${id}/tokens`, {});
  expect(pat.status, JSON.stringify(pat.body)).toBe(201);
  return { id, token: pat.body.token };
}

async function search(call: Call, filters: unknown[], params = ''): Promise<{ status: number; body: Record<string, any>; events: WireEvent[] }> {
  const response = await call('POST', `${SEARCH}${params === '' ? '' : `?${params}`}`, filters);
  return { ...response, events: (response.body.result ?? []) as WireEvent[] };
}

beforeAll(async () => {
  const ops = await createSystemUserKey('ops', 'ES256');
  node = await startTestNode({ env: { TESSERA_SYSTEM_USERS: systemUsersEnv([{ key: ops }]) } });
  sys = systemApi(node, ops);
  const admin = api(node);
  const auditor = await machineWithToken(admin, 'auditor', ['IAM_OWNER']);
  auditorId = auditor.id;
  auditorToken = auditor.token;
  // Everything below is caused by the auditor: its id is the events' creator.
  const asAuditor = api(node, auditorToken);
  const org = await asAuditor('POST', `${R}/organizations`, { name: 'Audit Org' });
  expect(org.status, JSON.stringify(org.body)).toBe(201);
  orgId = org.body.details.id;
  const bot = await asAuditor('POST', `${R}/users?ctx.orgId=${orgId}`, { machine: { username: 'audit-bot', name: 'Audit Bot' } });
  expect(bot.status, JSON.stringify(bot.body)).toBe(201);
  botId = bot.body.details.id;
  const secret = await asAuditor('POST', `${R}/users/${botId}/_generate_secret`);
  expect(secret.status, JSON.stringify(secret.body)).toBe(200);
  botSecret = secret.body.clientSecret;
  expect(botSecret.length).toBeGreaterThan(10);
  expect((await asAuditor('PATCH', `${R}/organizations/${orgId}`, { name: 'Audit Org Renamed' })).status).toBe(200);
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

describe('SearchEvents filters', () => {
  it('by aggregate: the org stream, in position order, with its per-aggregate sequence', async () => {
    const found = await search(api(node, auditorToken), [{ aggregate: { aggregateType: 'org', aggregateId: orgId } }], 'query.asc=true');
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.events.map((e) => e.eventType)).toEqual(['org.added', 'org.changed']);
    expect(found.events.map((e) => e.sequence)).toEqual(['1', '2']);
    expect(Number(found.events[1]!.position)).toBeGreaterThan(Number(found.events[0]!.position));
    for (const event of found.events) {
      expect(event).toMatchObject({ aggregateType: 'org', aggregateId: orgId, creator: auditorId, resourceOwner: { type: 'OWNER_TYPE_ORG', id: orgId } });
    }
    expect(found.events[1]!.payload).toMatchObject({ name: 'Audit Org Renamed' });
    expect(found.body.details).toMatchObject({ endOfList: true, totalResult: '2', appliedLimit: 100 });
    // by type only (no id): every user event, among them the bot's
    const users = await search(api(node, auditorToken), [{ aggregate: { aggregateType: 'user' } }]);
    expect(users.events.every((e) => e.aggregateType === 'user')).toBe(true);
    expect(users.events.some((e) => e.aggregateId === botId)).toBe(true);
  });

  it('by event type, exact and as a group (starts with)', async () => {
    const exact = await search(api(node, auditorToken), [{ eventType: { eventType: 'org.added' } }]);
    expect(exact.status).toBe(200);
    expect(exact.events.length).toBeGreaterThan(0);
    expect(exact.events.every((e) => e.eventType === 'org.added')).toBe(true);
    expect(exact.events.some((e) => e.aggregateId === orgId)).toBe(true);
    const group = await search(api(node, auditorToken), [{ eventType: { eventType: 'user.machine.', method: 'TEXT_FILTER_METHOD_STARTS_WITH' } }]);
    expect(group.events.every((e) => e.eventType.startsWith('user.machine.'))).toBe(true);
    expect(group.events.filter((e) => e.aggregateId === botId).map((e) => e.eventType).sort()).toEqual(['user.machine.added', 'user.machine.secret.set']);
  });

  it('by creator: exactly what that user caused', async () => {
    const mine = await search(api(node, auditorToken), [{ creator: { id: auditorId } }], 'query.asc=true');
    expect(mine.events.every((e) => e.creator === auditorId)).toBe(true);
    expect(mine.events.map((e) => `${e.aggregateId} ${e.eventType}`)).toEqual([
      `${orgId} org.added`,
      `${botId} user.machine.added`,
      `${botId} user.machine.secret.set`,
      `${orgId} org.changed`,
    ]);
    // the auditor's own membership was granted by the admin: not the auditor's event (control: it exists)
    const everything = await search(api(node, auditorToken), [{ aggregate: { aggregateType: 'user', aggregateId: auditorId } }]);
    expect(everything.events.length).toBeGreaterThan(0);
    expect(everything.events.every((e) => e.creator !== auditorId)).toBe(true);
  });

  it('by time range: bounds include and exclude by creation date', async () => {
    const [added] = (await search(api(node, auditorToken), [{ aggregate: { aggregateType: 'org', aggregateId: orgId } }], 'query.asc=true')).events;
    const at = added!.creationDate;
    const range = [
      { creationDate: { creationDate: at, method: 'TIMESTAMP_FILTER_METHOD_GREATER_OR_EQUALS' } },
      { creationDate: { creationDate: at, method: 'TIMESTAMP_FILTER_METHOD_LESS_OR_EQUALS' } },
    ];
    const inside = await search(api(node, auditorToken), range);
    expect(inside.status, JSON.stringify(inside.body)).toBe(200);
    expect(inside.events.some((e) => e.position === added!.position)).toBe(true);
    expect(inside.events.every((e) => e.creationDate === at)).toBe(true);
    const before = await search(api(node, auditorToken), [{ creationDate: { creationDate: at, method: 'TIMESTAMP_FILTER_METHOD_LESS' } }]);
    expect(before.status).toBe(200);
    expect(before.events.length).toBeGreaterThan(0); // the first-run events
    expect(before.events.some((e) => e.position === added!.position)).toBe(false);
    expect(before.events.every((e) => Date.parse(e.creationDate) < Date.parse(at))).toBe(true);
  });
});

describe('SearchEvents paging', () => {
  it.each([
    ['ascending', 'query.asc=true'],
    ['descending', ''],
  ])('limit 2 pages %s by cursor without overlap, ending with endOfList', async (_name, order) => {
    const call = api(node, auditorToken);
    const filter = [{ creator: { id: auditorId } }];
    const all = await search(call, filter, order);
    expect(all.events.length).toBe(4);
    const seen: string[] = [];
    let cursor = '0';
    for (let page = 0; page < 3; page++) {
      const next = await search(call, filter, [order, 'query.limit=2', `cursor=${cursor}`].filter((p) => p !== '').join('&'));
      expect(next.status, JSON.stringify(next.body)).toBe(200);
      expect(next.body.details.appliedLimit).toBe(2);
      seen.push(...next.events.map((e) => e.position));
      if (next.body.details.endOfList === true) break;
      expect(next.events.length).toBe(2);
      cursor = next.body.cursor;
    }
    expect(seen).toEqual(all.events.map((e) => e.position));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('offset skips matches after the cursor', async () => {
    const call = api(node, auditorToken);
    const filter = [{ creator: { id: auditorId } }];
    const all = await search(call, filter, 'query.asc=true');
    const skipped = await search(call, filter, 'query.asc=true&query.offset=1&query.limit=2');
    expect(skipped.events.map((e) => e.position)).toEqual(all.events.slice(1, 3).map((e) => e.position));
    expect(skipped.body.details.endOfList ?? false).toBe(false);
  });
});

describe('SearchEvents permission', () => {
  it('403 without events.read; IAM_OWNER_VIEWER and IAM_OWNER may read (positive controls)', async () => {
    const admin = api(node);
    const manager = await machineWithToken(admin, 'audit-org-manager', ['IAM_ORG_MANAGER']);
    const nobody = await machineWithToken(admin, 'audit-nobody', []);
    const viewer = await machineWithToken(admin, 'audit-viewer', ['IAM_OWNER_VIEWER']);
    const filter = [{ aggregate: { aggregateType: 'org', aggregateId: orgId } }];
    for (const token of [manager.token, nobody.token]) {
      const denied = await search(api(node, token), filter);
      expect(denied.status).toBe(403);
      expect(denied.body.details?.[0]?.id).toBe('auth.permission_denied');
    }
    expect((await search(api(node, ''), filter)).status).toBe(401);
    for (const token of [viewer.token, auditorToken, node.adminToken]) {
      const allowed = await search(api(node, token), filter);
      expect(allowed.status).toBe(200);
      expect(allowed.events.length).toBe(2);
    }
  });

  it("another instance's admin sees none of this instance's events; its own are there", async () => {
    const created = await sys('POST', `${R}/instances`, { name: 'Audit Other', domain: 'audit-other.example', admin: { username: 'other-admin' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const other = api(node, created.body.adminToken);
    const host = { host: `audit-other.example:${node.httpPort}` };
    const foreign = await other('POST', SEARCH, [{ aggregate: { aggregateType: 'org', aggregateId: orgId } }], host);
    expect(foreign.status, JSON.stringify(foreign.body)).toBe(200);
    expect(foreign.body.result ?? []).toEqual([]);
    const everything = await other('POST', `${SEARCH}?query.limit=1000`, [], host);
    expect(everything.status).toBe(200);
    const events = everything.body.result as WireEvent[];
    expect(events.some((e) => e.aggregateId === created.body.defaultOrgId && e.eventType === 'org.added')).toBe(true);
    expect(events.some((e) => e.aggregateId === orgId || e.aggregateId === botId || e.creator === auditorId)).toBe(false);
    // positive control: the same search in the owning instance finds the org
    const own = await search(api(node, auditorToken), [{ aggregate: { aggregateType: 'org', aggregateId: orgId } }]);
    expect(own.events.length).toBe(2);
    // and this instance's token means nothing on the other one
    expect((await api(node, auditorToken)('POST', SEARCH, [], host)).status).toBe(401);
  });
});

describe('SearchEvents redaction', () => {
  it('a machine secret event shows no digest, and the digest appears nowhere in the answer', async () => {
    const found = await search(api(node, auditorToken), [{ aggregate: { aggregateType: 'user', aggregateId: botId } }, { eventType: { eventType: 'user.machine.secret.set' } }]);
    expect(found.events).toHaveLength(1);
    expect(found.events[0]!.payload).toEqual({ digest: '[redacted]' });
    expect(found.events[0]!.redactedFields).toEqual(['digest']);
    const body = JSON.stringify(found.body);
    expect(body).not.toContain(tokenDigest(botSecret));
    expect(body).not.toContain(botSecret);
  });

  it('a personal access token event shows no digest', async () => {
    const found = await search(api(node, auditorToken), [{ aggregate: { aggregateType: 'user', aggregateId: auditorId } }, { eventType: { eventType: 'token', method: 'TEXT_FILTER_METHOD_CONTAINS' } }]);
    expect(found.events.length).toBeGreaterThan(0);
    for (const event of found.events) expect(event.redactedFields ?? []).toContain('digest');
    expect(JSON.stringify(found.body)).not.toContain(tokenDigest(auditorToken));
  });
});

describe('SearchEvents bad input', () => {
  it('400 naming the field: limit above 1000, empty aggregate type, missing creation date, cursor out of range', async () => {
    const call = api(node, auditorToken);
    const tooMany = await search(call, [], 'query.limit=1001');
    expect(tooMany.status).toBe(400);
    expect(violatedFields(tooMany.body)).toEqual(['query.limit']);
    const empty = await search(call, [{ aggregate: { aggregateType: '' } }, { creationDate: {} }]);
    expect(empty.status).toBe(400);
    expect(violatedFields(empty.body)).toEqual(['filters[0].aggregate.aggregateType', 'filters[1].creationDate.creationDate']);
    const cursor = await search(call, [], 'cursor=abc');
    expect(cursor.status).toBe(400);
    for (const order of ['query.asc=true', 'query.asc=false']) {
      const huge = await search(call, [], `${order}&cursor=18446744073709551615`);
      expect(huge.status, JSON.stringify(huge.body)).toBe(400);
      expect(violatedFields(huge.body)).toEqual(['cursor']);
    }
    // control: the largest safe cursor is accepted (nothing beyond it ascending)
    const safe = await search(call, [], `query.asc=true&cursor=${Number.MAX_SAFE_INTEGER}`);
    expect(safe.status).toBe(200);
    expect(safe.events).toEqual([]);
    // descending from beyond the head starts at the head (no walk through empty positions)
    const newest = await search(call, [], `query.limit=1&cursor=${Number.MAX_SAFE_INTEGER}`);
    expect(newest.status).toBe(200);
    expect(newest.events[0]!.position).toBe(newest.body.details.processedSequence);
  });
});

describe('SearchEvents over RPC transports', () => {
  it.each([
    ['connect', () => createConnectTransport({ baseUrl: node.baseUrl, httpVersion: '1.1' })],
    ['grpc-web', () => createGrpcWebTransport({ baseUrl: node.baseUrl, httpVersion: '1.1' })],
    ['grpc', () => createGrpcTransport({ baseUrl: node.grpcUrl })],
  ] as const)('%s: the same events as JSON/HTTP', async (_name, transport) => {
    const client = createClient(PlatformEvents, transport());
    const answer = await client.searchEvents(
      { query: { asc: true }, filters: [{ filter: { case: 'aggregate', value: { aggregateType: 'org', aggregateId: orgId } } }] },
      { headers: { authorization: `Bearer ${auditorToken}` } },
    );
    expect(answer.result.map((e) => e.eventType)).toEqual(['org.added', 'org.changed']);
    expect(answer.result[0]!.creator).toBe(auditorId);
    expect(answer.result[1]!.payload?.name).toBe('Audit Org Renamed');
    const json = await search(api(node, auditorToken), [{ aggregate: { aggregateType: 'org', aggregateId: orgId } }], 'query.asc=true');
    expect(answer.result.map((e) => String(e.position))).toEqual(json.events.map((e) => e.position));
  });
});
