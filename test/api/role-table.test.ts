/** docs/permissions.md carries the role table generated from actors/kernel/roles.ts. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compactPermissions, renderRoleTable, withRoleTable } from '../../src/api/role-table.js';

describe('role table', () => {
  it('compacts permissions sharing a prefix', () => {
    expect(compactPermissions(['org.write', 'org.read', 'impersonation', 'iam.member.read'])).toEqual(['iam.member.read', 'impersonation', 'org.{read,write}']);
  });

  it('docs/permissions.md is up to date (run `npm run docs:permissions`)', () => {
    const onDisk = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'permissions.md'), 'utf8');
    expect(onDisk).toContain(renderRoleTable());
    expect(withRoleTable(onDisk)).toBe(onDisk);
  });
});
