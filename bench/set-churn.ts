/**
 * Why the uWS adapter keeps its in-flight requests in a list and not a Set (issue 13): a
 * long-lived Set whose members come and go, as request records do, against a list threaded
 * through the members, measured by what each scavenge promotes (the old generation's growth
 * across it, `v8.GCProfiler`). `npm run build && node --expose-gc dist/bench/set-churn.js`;
 * `SET_CHURN_LIVE` (1) members at once, `SET_CHURN_COUNT` (2,000,000) members in all. A count,
 * not a time: it does not depend on the machine's load.
 */
import { GCProfiler } from 'node:v8';

interface Member {
  readonly id: number;
  readonly payload: number[];
  prev: Member | undefined;
  next: Member | undefined;
}

const LIVE = Number(process.env.SET_CHURN_LIVE ?? 1);
const COUNT = Number(process.env.SET_CHURN_COUNT ?? 2_000_000);

function churn(add: (member: Member) => void, remove: (member: Member) => void): { scavenges: number; medianPromoted: number; promotedPerMember: number } {
  const held: Member[] = [];
  const profiler = new GCProfiler();
  profiler.start();
  for (let id = 0; id < COUNT; id += 1) {
    const member: Member = { id, payload: new Array<number>(16).fill(id), prev: undefined, next: undefined };
    add(member);
    held.push(member);
    if (held.length > LIVE) remove(held.shift() as Member); // longer than LIVE
    for (let k = 0; k < 8; k += 1) held.at(-1)?.payload.slice(k); // short-lived garbage beside it
  }
  const oldBytes = (spaces: readonly { spaceName: string; spaceUsedSize: number }[]): number => spaces.reduce((sum, space) => (space.spaceName === 'old_space' ? sum + space.spaceUsedSize : sum), 0);
  const promoted = (profiler.stop()?.statistics ?? [])
    .filter((entry) => entry.gcType === 'Scavenge')
    .map((entry) => oldBytes(entry.afterGC.heapSpaceStatistics) - oldBytes(entry.beforeGC.heapSpaceStatistics))
    .sort((a, b) => a - b);
  const total = promoted.reduce((sum, bytes) => sum + bytes, 0);
  return { scavenges: promoted.length, medianPromoted: promoted[promoted.length >> 1] ?? 0, promotedPerMember: Math.round(total / COUNT) };
}

const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) throw new Error('run with node --expose-gc');

const set = new Set<Member>();
const list: { head: Member | undefined; tail: Member | undefined } = { head: undefined, tail: undefined };
collect(); // the Set and the list head into the old generation, as a server's are
collect();
const results = {
  set: churn(
    (member) => set.add(member),
    (member) => set.delete(member),
  ),
  list: churn(
    (member) => {
      member.prev = list.tail;
      if (list.tail === undefined) list.head = member;
      else list.tail.next = member;
      list.tail = member;
    },
    (member) => {
      if (member.prev === undefined) list.head = member.next;
      else member.prev.next = member.next;
      if (member.next === undefined) list.tail = member.prev;
      else member.next.prev = member.prev;
      member.prev = undefined;
      member.next = undefined;
    },
  ),
};
for (const [name, result] of Object.entries(results)) {
  process.stdout.write(`${name}: ${COUNT} members, ${LIVE} at once: ${result.scavenges} scavenges, median ${result.medianPromoted} bytes promoted per scavenge, ${result.promotedPerMember} bytes promoted per member\n`);
}
