/**
 * Renders the full role → permission table of docs/permissions.md from actors/kernel/roles.ts,
 * between two markers, so the documentation cannot drift from the code (a test compares them;
 * `npm run docs:permissions` rewrites the section).
 */
import { ROLES, type RoleName } from '../../actors/index.js';

export const ROLE_TABLE_BEGIN = '<!-- role-table:begin (generated from actors/kernel/roles.ts by `npm run docs:permissions`; do not edit) -->';
export const ROLE_TABLE_END = '<!-- role-table:end -->';

const contextNames = { system: 'system', instance: 'instance', org: 'organization', project: 'project' } as const;

/** `a.read`, `a.write` → `a.{read,write}`; sorted by prefix. */
export function compactPermissions(permissions: Iterable<string>): string[] {
  const byPrefix = new Map<string, string[]>();
  for (const permission of [...permissions].sort()) {
    const dot = permission.lastIndexOf('.');
    const prefix = dot === -1 ? '' : permission.slice(0, dot);
    const list = byPrefix.get(prefix) ?? [];
    list.push(dot === -1 ? permission : permission.slice(dot + 1));
    byPrefix.set(prefix, list);
  }
  return [...byPrefix].map(([prefix, leaves]) => {
    if (prefix === '') return leaves.join(', ');
    return leaves.length === 1 ? `${prefix}.${leaves[0]}` : `${prefix}.{${leaves.join(',')}}`;
  });
}

export function renderRoleTable(): string {
  const rows = (Object.keys(ROLES) as RoleName[]).map((name) => {
    const role = ROLES[name];
    const grants = compactPermissions(role.permissions).map((p) => `\`${p}\``).join(', ');
    return `| \`${name}\` | ${contextNames[role.context]} | ${grants} |`;
  });
  return [ROLE_TABLE_BEGIN, '', '| Role | Context | Permissions |', '|---|---|---|', ...rows, '', ROLE_TABLE_END].join('\n');
}

/** The document with its role-table section replaced by the current rendering. */
export function withRoleTable(doc: string): string {
  const begin = doc.indexOf(ROLE_TABLE_BEGIN);
  const end = doc.indexOf(ROLE_TABLE_END);
  if (begin === -1 || end < begin) throw new Error('docs/permissions.md has no role-table markers');
  return doc.slice(0, begin) + renderRoleTable() + doc.slice(end + ROLE_TABLE_END.length);
}
