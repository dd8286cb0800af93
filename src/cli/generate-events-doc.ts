/** Writes docs/events.md from the event catalogue in actors/events.ts (npm run docs:events). */
import { writeFileSync } from 'node:fs';
import { renderEventsDoc } from '../../actors/index.js';

writeFileSync(new URL('../../../docs/events.md', import.meta.url), renderEventsDoc());
