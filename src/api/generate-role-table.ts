/** Rewrites the generated role table of docs/permissions.md (npm run docs:permissions). */
import { readFileSync, writeFileSync } from 'node:fs';
import { withRoleTable } from './role-table.js';

const path = new URL('../../../docs/permissions.md', import.meta.url);
writeFileSync(path, withRoleTable(readFileSync(path, 'utf8')));
