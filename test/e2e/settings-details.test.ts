/**
 * Settings `details` always carry `change_date` (issue #12 item 14), on every settings service:
 * settings never set carry their owner's creation time (the organization's, or the instance's),
 * a change moves it to the change's time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';

const READS = ['/settings/v3alpha/users', '/settings/v3alpha/login', '/settings/v3alpha/languages', '/settings/v3alpha/texts/en', '/settings/v3alpha/branding'];
const ORG_READS = ['/settings/v3alpha/languages', '/settings/v3alpha/texts/en', '/settings/v3alpha/branding'];

let node: TestNode;
let call: ReturnType<typeof api>;
let orgId: string;
let orgCreated: string;

beforeAll(async () => {
  node = await startTestNode({ env: { TESSERA_DEFAULT_FEATURES: 'multitenancy_settings' } });
  call = api(node);
  const created = await call('POST', '/resources/v3alpha/organizations', { name: 'Details Org' });
  orgId = created.body.details.id;
  orgCreated = created.body.details.changeDate;
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

async function changeDateOf(path: string): Promise<string | undefined> {
  const response = await call('GET', path);
  expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBe(200);
  return response.body.details.changeDate;
}

describe('settings details', () => {
  it('carry the organization’s creation time for settings it never set', async () => {
    expect(orgCreated).toMatch(/^\d{4}-\d\d-\d\dT/);
    for (const path of ORG_READS) expect(await changeDateOf(`${path}?ctx.orgId=${orgId}`), path).toBe(orgCreated);
  });

  it('carry the instance’s creation time for instance settings never set, the same on every service', async () => {
    const dates = await Promise.all(READS.map(changeDateOf));
    expect(dates[0]).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(new Set(dates).size).toBe(1);
    expect(Date.parse(dates[0]!)).toBeLessThan(Date.parse(orgCreated)); // the instance came first
    // the features were set when the instance was created (TESSERA_DEFAULT_FEATURES): a change date too
    expect(Date.parse((await changeDateOf('/settings/v3alpha/features'))!)).toBeGreaterThanOrEqual(Date.parse(dates[0]!));
  });

  it('carry the time of the last change once set (positive control)', async () => {
    const written = await call('PATCH', `/settings/v3alpha/branding?ctx.orgId=${orgId}`, { primaryColor: { set: '#112233' } });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect(Date.parse(written.body.details.changeDate)).toBeGreaterThan(Date.parse(orgCreated));
    expect(await changeDateOf(`/settings/v3alpha/branding?ctx.orgId=${orgId}`)).toBe(written.body.details.changeDate);
  });

  it('a change that changes nothing on never-set settings answers with the owner’s creation time', async () => {
    const written = await call('PATCH', `/settings/v3alpha/languages?ctx.orgId=${orgId}`, {});
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect(written.body.details.changeDate).toBe(orgCreated);
  });
});
