/** Writes docs/configuration.md from the schema (npm run docs:config). */
import { writeFileSync } from 'node:fs';
import { renderConfigDocs } from './render-docs.js';

writeFileSync(new URL('../../../docs/configuration.md', import.meta.url), renderConfigDocs());
