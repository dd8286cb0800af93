/**
 * What one rate-limit count costs on the request path (docs/operations/rate-limits.md): the
 * in-memory limiter against the PostgreSQL volume counter's local path (counted here, synced
 * every 200 ms in the background), as CPU microseconds per consume over many keys, plus the
 * number of sync statements the PostgreSQL counter sent meanwhile.
 *
 *   npm run build && TESSERA_BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test \
 *     node dist/bench/rate-limit-counters.js
 *
 * Without TESSERA_BENCH_DATABASE_URL only the memory limiter is measured. The schema it
 * creates is dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import { memoryCounters, type LimitCounter } from '../src/http/rate-limits.js';
import { createPostgresCounters } from '../src/http/rate-limits-postgres.js';
import { connectPostgres, migratePostgres } from '../src/store/postgres-store.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 200_000);
const KEYS = 1_000;
const RATE = { points: 1_000_000_000, windowMs: 3_600_000 };

async function measure(name: string, counter: LimitCounter): Promise<void> {
  const keys = Array.from({ length: KEYS }, (_, i) => `instance\u0000client-${i}`);
  for (const key of keys) await counter.consume(key); // warm-up: every key seen once (the PostgreSQL counter reads each key's row here)
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i += 1) await counter.consume(keys[i % KEYS]!);
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const used = process.cpuUsage(cpu);
  const cpuUs = used.user + used.system;
  console.log(JSON.stringify({ counter: name, calls: CALLS, keys: KEYS, cpuMicrosPerCall: +(cpuUs / CALLS).toFixed(3), wallMs: Math.round(wallMs) }));
}

await measure('memory', memoryCounters('client', RATE, 'node'));

const url = process.env.TESSERA_BENCH_DATABASE_URL;
if (url !== undefined) {
  const schema = `tessera_bench_${randomBytes(4).toString('hex')}`;
  await migratePostgres({ url, schema });
  const sql = connectPostgres({ url, schema, maxConnections: 2 });
  let statements = 0;
  const counting = new Proxy(sql, {
    get(target, prop, receiver) {
      if (prop === 'unsafe') {
        return (...args: Parameters<typeof sql.unsafe>) => {
          statements += 1;
          return target.unsafe(...args);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  const counters = createPostgresCounters(counting);
  try {
    await measure('postgres-batched', counters.counters('client', RATE, 'node'));
    await counters.sync();
    const [row] = await sql.unsafe<{ total: string }[]>('SELECT sum(points) AS total FROM rate_limit_counts');
    console.log(JSON.stringify({ counter: 'postgres-batched', statements, countedInPostgres: Number(row?.total ?? 0), expected: CALLS + KEYS }));
  } finally {
    await counters.close();
    await sql.unsafe(`DROP SCHEMA "${schema}" CASCADE`);
    await sql.end({ timeout: 5 });
  }
}
