/**
 * The PostgreSQL driver's connection queues behave as queues after patches/postgres+3.4.9.patch
 * changed them (issue #15, bench/README.md "Node CPU per PostgreSQL statement"): postgres.js keeps
 * its idle, busy and waiting connections and queries in `Queue`s whose array only emptied when
 * the queue did, so with two idle pool connections taken and put back in turn it grew by one slot
 * per statement, and every move of a connection (`remove`, an indexOf) scanned all of them. The
 * patch searches from the head and compacts the array once half of it is shifted out; what it
 * costs is measured in the bench, not here (no timing assertions): this checks that order,
 * `remove` and `length` are unchanged across many compactions, in both builds of the package.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

interface DriverQueue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T | undefined;
  remove(x: T): T | null;
}
type QueueFactory = <T>(initial?: T[]) => DriverQueue<T>;

const require = createRequire(import.meta.url);
const packageDir = require.resolve('postgres').replace(/cjs[\\/]src[\\/]index\.js$/, '');
const builds: [string, QueueFactory][] = [
  ['ES module', ((await import(`${packageDir}src/queue.js`)) as { default: QueueFactory }).default],
  ['CommonJS', require(`${packageDir}cjs/src/queue.js`) as QueueFactory],
];

describe.each(builds)("postgres.js's Queue (%s)", (_, Queue) => {
  it('keeps two entries taken and put back in turn in order, through many compactions', () => {
    const open = Queue<string>();
    const busy = Queue<string>();
    open.push('a');
    open.push('b');
    const taken: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      const c = open.shift()!;
      expect(open.remove(c)).toBeNull(); // as the pool's move(): the taken one is no longer there
      busy.push(c);
      expect(busy.remove(c)).toBe(c);
      open.push(c);
      taken.push(c);
    }
    expect(taken.slice(0, 4)).toEqual(['a', 'b', 'a', 'b']);
    expect(taken.slice(-2)).toEqual(['a', 'b']);
    expect(open.length).toBe(2);
    expect(busy.length).toBe(0);
  });

  it('removes from the middle and shifts in order after compacting', () => {
    const q = Queue<number>();
    for (let i = 0; i < 100; i++) q.push(i);
    for (let i = 0; i < 60; i++) expect(q.shift()).toBe(i); // past the compaction threshold
    expect(q.length).toBe(40);
    expect(q.remove(59)).toBeNull(); // already shifted out
    expect(q.remove(70)).toBe(70);
    expect(q.remove(70)).toBeNull();
    const rest: number[] = [];
    while (q.length > 0) rest.push(q.shift()!);
    expect(rest).toEqual([...Array.from({ length: 10 }, (_, i) => 60 + i), ...Array.from({ length: 29 }, (_, i) => 71 + i)]);
    expect(q.shift()).toBeUndefined();
  });
});
