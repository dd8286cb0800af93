/**
 * Export to and import from object storage (`gcs_output`, `data_orgsv1_gcs`) through the
 * official @google-cloud/storage client, against the FAKE GCS server of
 * fake-gcs-server.fixture.ts (TESSERA_GCS_ENDPOINT): the client authenticates with the
 * request's service account (JWT exchanged at the fake's token_uri, bearer on every object
 * call), the object holds the same document as the inline export, the import reads it back,
 * and bad service accounts / missing buckets / refusals are clear 4xx answers.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode, violatedFields } from './harness.js';
import { createSystemUserKey, systemApi, systemUsersEnv } from './system-user.fixture.js';
import { startFakeGcs, unknownServiceAccount, type FakeGcs } from './fake-gcs-server.fixture.js';

const R = '/resources/v3alpha';
const MIB = 1024 * 1024;
/** The node's TESSERA_IMPORT_MAX_BODY_BYTES: above the 1 MiB of every other route. */
const IMPORT_LIMIT = 3 * MIB;
const ACCOUNT = 'exporter@fake-project.iam.gserviceaccount.com';
const OUTSIDER = 'outsider@fake-project.iam.gserviceaccount.com';
let gcs: FakeGcs;
let node: TestNode;
let first: ReturnType<typeof api>;
let second: ReturnType<typeof api>;
let keyFile: string;
let orgId: string;
let userId: string;

const expectStatus = (response: { status: number; body: unknown }, status: number) => expect(response.status, JSON.stringify(response.body)).toBe(status);
const b64 = (text: string) => Buffer.from(text).toString('base64');

beforeAll(async () => {
  gcs = await startFakeGcs();
  keyFile = gcs.serviceAccount(ACCOUNT);
  gcs.createBucket('tessera-exports', [ACCOUNT]);
  gcs.createBucket('locked-bucket', []);
  const ops = await createSystemUserKey('ops');
  node = await startTestNode({ env: { TESSERA_GCS_ENDPOINT: gcs.url, TESSERA_IMPORT_MAX_BODY_BYTES: String(IMPORT_LIMIT), TESSERA_SYSTEM_USERS: systemUsersEnv([{ key: ops }]), TESSERA_DEFAULT_FEATURES: 'multitenancy_resources_api' } });
  first = api(node);
  const instance = await systemApi(node, ops)('POST', `${R}/instances`, { name: 'Bucket Target', domain: 'bucket-target.test', admin: { username: 'bucket-admin' } });
  expectStatus(instance, 201);
  const onSecond = api(node, instance.body.adminToken);
  second = (method, path, body, headers = {}) => onSecond(method, path, body, { host: `bucket-target.test:${node.httpPort}`, ...headers });
  orgId = (await first('POST', `${R}/organizations`, { name: 'Bucket Org' })).body.details.id;
  const user = await first('POST', `${R}/users?ctx.orgId=${orgId}`, {
    human: { username: 'bucket-user', profile: { givenName: 'B', familyName: 'U' }, email: { address: 'bucket@example.com' }, password: 'Secr3tPassword' },
  });
  expectStatus(user, 201);
  userId = user.body.details.id;
});

afterAll(async () => {
  await node?.stop();
  node?.cleanup();
  await gcs?.close();
});

const gcsOutput = (extra: Record<string, unknown> = {}) => ({ bucket: 'tessera-exports', path: 'migrations/2026/orgs.json', serviceaccount_json: keyFile, ...extra });

describe('export to a bucket', () => {
  it('uploads the same document as the inline export and answers bucket, path, bytes and counts', async () => {
    const before = gcs.requests.length;
    // wrapped as `base64` prints it (76 characters a line)
    const wrapped = keyFile.replace(/.{76}/g, '$&\n');
    const exported = await first('POST', '/admin/v1/export', { org_ids: [orgId], with_passwords: true, gcs_output: gcsOutput({ serviceaccount_json: wrapped }) });
    expectStatus(exported, 200);
    const stored = gcs.objects.get('tessera-exports/migrations/2026/orgs.json');
    expect(stored).toBeDefined();
    expect(exported.body).toEqual({ bucket: 'tessera-exports', path: 'migrations/2026/orgs.json', bytes: stored!.length, counts: expect.objectContaining({ orgs: 1, humanUsers: 1 }) });
    const inline = await first('POST', '/admin/v1/export', { org_ids: [orgId], with_passwords: true, response_output: true });
    expect(JSON.parse(stored!.toString())).toEqual(inline.body);
    expect(stored!.toString()).toContain('$argon2id$');
    // the client authenticated: a token exchange, then the upload with the bearer it earned
    const calls = gcs.requests.slice(before);
    expect(calls.map((c) => `${c.method} ${c.url.split('?')[0]}`)).toEqual(['POST /token', 'POST /upload/storage/v1/b/tessera-exports/o']);
    expect(calls[1]).toMatchObject({ authorized: true, url: expect.stringContaining('uploadType=multipart') });
  });

  it.each([
    ['not base64', '%%%', 'the value'],
    ['base64 of non-JSON', b64('not json'), 'not JSON'],
    ['JSON without a private key', b64(JSON.stringify({ client_email: ACCOUNT })), 'client_email and private_key'],
    ['a private key that is no PEM', b64(JSON.stringify({ client_email: ACCOUNT, private_key: 'nope' })), 'PEM'],
    ['a token_uri on a foreign host', unknownServiceAccount(ACCOUNT, 'http://127.0.0.1:9/token'), 'token_uri'],
  ])('answers 400 naming the field for %s', async (_, account) => {
    const response = await first('POST', '/admin/v1/export', { org_ids: [orgId], gcs_output: gcsOutput({ serviceaccount_json: account }) });
    expectStatus(response, 400);
    expect(violatedFields(response.body)).toEqual(['gcsOutput.serviceaccountJson']);
  });

  it('answers 400 for both outputs, a missing service account and an empty bucket name', async () => {
    expect(violatedFields((await first('POST', '/admin/v1/export', { response_output: true, gcs_output: gcsOutput() })).body)).toEqual(['gcsOutput']);
    expect(violatedFields((await first('POST', '/admin/v1/export', { gcs_output: { bucket: 'tessera-exports', path: 'x.json' } })).body)).toEqual(['gcsOutput.serviceaccountJson']);
    expect(violatedFields((await first('POST', '/admin/v1/export', { gcs_output: gcsOutput({ bucket: '' }) })).body)).toEqual(['gcsOutput.bucket']);
  });

  it('passes the provider’s refusals on: unknown bucket 404, denied account and unknown key 400 — never 500', async () => {
    const missing = await first('POST', '/admin/v1/export', { org_ids: [orgId], gcs_output: gcsOutput({ bucket: 'no-such-bucket' }) });
    expectStatus(missing, 404);
    expect(missing.body.details[0].id).toBe('bucket.not_found');
    expect(missing.body.message).toContain('The specified bucket does not exist.');
    const denied = await first('POST', '/admin/v1/export', { org_ids: [orgId], gcs_output: gcsOutput({ bucket: 'locked-bucket' }) });
    expectStatus(denied, 400);
    expect(denied.body.details[0].id).toBe('bucket.access_denied');
    expect(denied.body.message).toContain('does not have storage.objects.create access');
    const forged = await first('POST', '/admin/v1/export', { org_ids: [orgId], gcs_output: gcsOutput({ serviceaccount_json: unknownServiceAccount(OUTSIDER, `${gcs.url}/token`) }) });
    expectStatus(forged, 400);
    expect(forged.body.details[0].id).toBe('bucket.access_denied');
    expect(forged.body.message).toContain('invalid_grant');
    expect(gcs.objects.has('locked-bucket/migrations/2026/orgs.json')).toBe(false);
  });
});

describe('import from a bucket', () => {
  const dataOrgsv1Gcs = (extra: Record<string, unknown> = {}) => ({ bucket: 'tessera-exports', path: 'migrations/2026/orgs.json', serviceaccount_json: keyFile, ...extra });

  it('reads the object and runs the same import as the inline body; a second run creates nothing', async () => {
    const imported = await second('POST', '/admin/v1/import', { timeout: '1m', data_orgsv1_gcs: dataOrgsv1Gcs() });
    expectStatus(imported, 200);
    expect(imported.body.errors).toEqual([]);
    expect(imported.body.counts).toMatchObject({ org: { created: 1 }, human_user: { created: 1 } });
    const user = await second('GET', `${R}/users/${userId}`);
    expectStatus(user, 200);
    expect(user.body.user.username).toBe('bucket-user');
    const again = await second('POST', '/admin/v1/import', { timeout: '1m', dataOrgsv1Gcs: dataOrgsv1Gcs() });
    expectStatus(again, 200);
    expect(again.body.counts.human_user).toEqual({ created: 0, skipped: 1, failed: 0 });
  });

  it('answers 404 for a missing object, 400 naming the field for a malformed object or bad account', async () => {
    const missing = await second('POST', '/admin/v1/import', { timeout: '1m', data_orgsv1_gcs: dataOrgsv1Gcs({ path: 'nothing-here.json' }) });
    expectStatus(missing, 404);
    expect(missing.body.details[0].id).toBe('bucket.not_found');
    expect(missing.body.message).toContain('No such object: tessera-exports/nothing-here.json');
    gcs.objects.set('tessera-exports/broken.json', Buffer.from('{"orgs":['));
    const broken = await second('POST', '/admin/v1/import', { timeout: '1m', data_orgsv1_gcs: dataOrgsv1Gcs({ path: 'broken.json' }) });
    expectStatus(broken, 400);
    expect(broken.body.details[0].id).toBe('import.malformed_document');
    expect(violatedFields(broken.body)).toEqual(['dataOrgsv1Gcs']);
    gcs.objects.set('tessera-exports/shapeless.json', Buffer.from('{"orgs":[{"org":{"name":"x"}}]}'));
    const shapeless = await second('POST', '/admin/v1/import', { timeout: '1m', data_orgsv1_gcs: dataOrgsv1Gcs({ path: 'shapeless.json' }) });
    expect(violatedFields(shapeless.body)).toEqual(['dataOrgsv1Gcs.orgs[0].orgId']);
    const bad = await second('POST', '/admin/v1/import', { timeout: '1m', data_orgsv1_gcs: dataOrgsv1Gcs({ serviceaccount_json: b64('{}') }) });
    expectStatus(bad, 400);
    expect(violatedFields(bad.body)).toEqual(['dataOrgsv1Gcs.serviceaccountJson']);
  });
});

describe('body limits', () => {
  const padded = (bytes: number) => `{"orgs":[]${' '.repeat(bytes)}}`;
  /**
   * The answer to a POST that announces the body's length but never sends it (raw socket): a
   * body over the limit is refused from the content-length alone, before it is read.
   */
  const statusOf = (path: string, body: unknown, host = `localhost:${node.httpPort}`) =>
    new Promise<number>((resolve) => {
      const payload = Buffer.from(JSON.stringify(body));
      const socket = connect(node.httpPort, '127.0.0.1');
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (d: string) => (text += d));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1])));
      socket.write(`POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\nConnection: close\r\n\r\n`);
      setTimeout(() => socket.destroy(), 5000); // a body within the limit would be awaited: 408 comes later
    });

  it('takes an inline import above TESSERA_MAX_BODY_BYTES up to TESSERA_IMPORT_MAX_BODY_BYTES; other routes keep 1 MiB', async () => {
    const within = await second('POST', '/admin/v1/import', { timeout: '1m', data_orgsv1: padded(2 * MIB) });
    expectStatus(within, 200);
    expect(within.body.errors).toEqual([]);
    expect(await statusOf('/admin/v1/import', { timeout: '1m', data_orgsv1: padded(IMPORT_LIMIT) }, `bucket-target.test:${node.httpPort}`)).toBe(413);
    expect(await statusOf(`${R}/organizations`, { name: 'x'.repeat(2 * MIB) })).toBe(413);
    expect(await statusOf('/admin/v1/export', { response_output: true, pad: 'x'.repeat(2 * MIB) })).toBe(413);
  });

  it('refuses an object larger than TESSERA_IMPORT_MAX_BODY_BYTES with 400', async () => {
    gcs.objects.set('tessera-exports/huge.json', Buffer.from(padded(IMPORT_LIMIT)));
    const huge = await second('POST', '/admin/v1/import', { timeout: '1m', data_orgsv1_gcs: { bucket: 'tessera-exports', path: 'huge.json', serviceaccount_json: keyFile } });
    expectStatus(huge, 400);
    expect(huge.body.details[0].id).toBe('import.document_too_large');
    expect(violatedFields(huge.body)).toEqual(['dataOrgsv1Gcs']);
  });
});
