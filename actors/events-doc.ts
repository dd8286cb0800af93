/**
 * Renders docs/events.md from the event catalogue (actors/events.ts): the intro below, then one
 * row per event. `npm run docs:events` writes it; test/actors/events-doc.test.ts fails when the
 * file differs, so the doc cannot drift from the events the code records.
 */
import { EVENT_CATALOGUE } from './events.js';
import type { EventDoc } from './kernel/events.js';

const HEADER = `# Event catalogue

<!-- Generated from actors/events.ts by \`npm run docs:events\`. Do not edit by hand. -->

Every write records one or more domain events named \`<aggregate>.<type>.<action>\` (past tense).
Events are facts: never renamed or edited; a changed shape gets a new name or version. Groups
are the dotted prefixes (\`org\`, \`user.machine\`, \`instance.member\`), which is what event
executions match on. Every event carries its instance, aggregate type and id, resource owner,
stream version, per-instance position (the \`sequence\` of Details), creation time and creator.

Protocol state (authorization requests, codes, tokens) records **no** events. Sessions are the
exception: they are an aggregate with events (\`session.*\`, below; docs/architecture.md "Sessions").
Security facts about a user's tokens are recorded on the user: \`user.impersonated\` and
\`user.refresh.token.reused\` (rare, never on the token hot path).

The reference names the action events \`target.added\`, \`target.changed\`, \`target.removed\`,
\`execution.set\` and \`execution.removed\`; Tessera prefixes them with the \`action\` aggregate
(\`<aggregate>.<type>.<action>\`), so an event condition on the group \`action\` (or
\`action.target\`) covers them.

Payload fields marked "when changed" are present only when the command changed them. Each
aggregate's events are one TypeScript union in the code, shared by the command that emits them
and the fold that reads them; this table is generated from the same catalogue.
`;

export function renderEventsDoc(): string {
  const rows: string[] = [];
  for (const catalogue of EVENT_CATALOGUE) {
    const entries: [string, EventDoc<unknown>][] = Object.entries(catalogue.events);
    for (const [type, doc] of entries) {
      rows.push(`| \`${type}\` | ${cell(catalogue.aggregate)} | ${cell(doc.emittedBy)} | ${payloadCell(doc.payload)} |`);
    }
  }
  return [HEADER, '| Event | Aggregate | Emitted by | Payload |', '|---|---|---|---|', ...rows, ''].join('\n');
}

function payloadCell(fields: Readonly<Record<string, string>>): string {
  const described = Object.entries(fields).map(([name, text]) => `\`${name}\`: ${text}`);
  return described.length === 0 ? '—' : cell(described.join('; '));
}

/** Table cells hold one line; a pipe would end the cell. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
