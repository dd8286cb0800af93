/**
 * Imported bcrypt password hashes (another identity system's export): the user logs in with the
 * original password, and the good login moves the stored hash to argon2id (seen in a
 * with_passwords export), after which the password still works and a wrong one still fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';

// A test vector of the OpenWall crypt_blowfish suite: the password `U*U`, made by another implementation.
const BCRYPT_HASH = '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW';
const PASSWORD = 'U*U';
const SESSIONS = '/resources/v3alpha/sessions';

let node: TestNode;
let call: ReturnType<typeof api>;

beforeAll(async () => {
  node = await startTestNode();
  call = api(node);
});
afterAll(async () => {
  await node.stop();
  node.cleanup();
});

const login = (password: string) => call('POST', SESSIONS, { checks: { user: { userId: '310000000000000002' }, password: { password } } });

async function storedHash(orgId: string): Promise<string> {
  const exported = await call('POST', '/admin/v1/export', { org_ids: [orgId], with_passwords: true, response_output: true });
  expect(exported.status).toBe(200);
  return exported.body.orgs[0].humanUsers[0].user.hashedPassword.value;
}

describe('imported bcrypt password hashes', () => {
  it('verify the original password, then are replaced by argon2id on the first good login', async () => {
    const orgId = '310000000000000001';
    const document = {
      orgs: [
        {
          orgId,
          org: { name: 'Bcrypt Imports' },
          humanUsers: [
            {
              userId: '310000000000000002',
              user: { userName: 'bcrypt-bea', profile: { firstName: 'Bea', lastName: 'Crypt' }, email: { email: 'bea@example.com', isEmailVerified: true }, hashedPassword: { value: BCRYPT_HASH } },
            },
          ],
        },
      ],
    };
    const imported = await call('POST', '/admin/v1/import', { timeout: '1m', data_orgsv1: document });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(await storedHash(orgId)).toBe(BCRYPT_HASH);

    expect((await login('U*U*')).status).toBe(400);
    expect(await storedHash(orgId)).toBe(BCRYPT_HASH); // a failed check changes nothing

    const good = await login(PASSWORD);
    expect(good.status, JSON.stringify(good.body)).toBe(201);
    const upgraded = await storedHash(orgId);
    expect(upgraded).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);

    expect((await login(PASSWORD)).status).toBe(201);
    expect((await login('U*U*')).status).toBe(400);
    expect(await storedHash(orgId)).toBe(upgraded);
  });
});
