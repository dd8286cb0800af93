/**
 * Why the JSON transport's CallMeta is a class and the API call context names each property
 * (issue 15): two object-literal shapes that, built once per request on Node 20's V8, kept every
 * request's objects through scavenges into old space, against the shapes that replaced them,
 * measured by what each scavenge promotes (the old generation's growth across it,
 * `v8.GCProfiler`). `npm run build && node --expose-gc dist/bench/literal-churn.js`;
 * `LITERAL_CHURN_COUNT` (1,000,000) objects per shape. A count, not a time.
 */
import { GCProfiler } from 'node:v8';

interface RequestRecord {
  readonly id: string;
  readonly headers: Record<string, string>;
  readonly payload: number[];
}

interface View {
  readonly headers: Record<string, string>;
  readonly requestId: string;
}

const COUNT = Number(process.env.LITERAL_CHURN_COUNT ?? 1_000_000);

/** Getters in a literal: each one a new closure over the request, held by an accessor pair. */
function literalGetters(req: RequestRecord): View {
  return {
    headers: req.headers,
    get requestId() {
      return req.id;
    },
  };
}

class ClassView implements View {
  readonly headers: Record<string, string>;
  constructor(private readonly req: RequestRecord) {
    this.headers = req.headers;
  }
  get requestId(): string {
    return this.req.id;
  }
}

const classGetters = (req: RequestRecord): View => new ClassView(req);

interface Parts {
  readonly headers: Record<string, string>;
  readonly requestId: string;
  readonly payload: number[];
  readonly setStatus: (status: number) => void;
}

/** A spread, then more properties: what createCallContext returned. */
function spreadThenAdd(parts: Parts): Parts & { can(): boolean } {
  const can = () => parts.payload.length > 0;
  return { ...parts, can };
}

function eachNamed(parts: Parts): Parts & { can(): boolean } {
  const { headers, requestId, payload, setStatus } = parts;
  const can = () => payload.length > 0;
  return { headers, requestId, payload, setStatus, can };
}

function churn(make: (id: number) => View): { scavenges: number; promotedPerObject: number } {
  const profiler = new GCProfiler();
  profiler.start();
  let sink = 0;
  for (let id = 0; id < COUNT; id += 1) sink += make(id).requestId.length;
  const oldBytes = (spaces: readonly { spaceName: string; spaceUsedSize: number }[]): number => spaces.reduce((sum, space) => (space.spaceName === 'old_space' ? sum + space.spaceUsedSize : sum), 0);
  const promoted = (profiler.stop()?.statistics ?? [])
    .filter((entry) => entry.gcType === 'Scavenge')
    .map((entry) => oldBytes(entry.afterGC.heapSpaceStatistics) - oldBytes(entry.beforeGC.heapSpaceStatistics));
  if (sink === 0) throw new Error('nothing built');
  return { scavenges: promoted.length, promotedPerObject: Math.round(promoted.reduce((sum, bytes) => sum + bytes, 0) / COUNT) };
}

const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) throw new Error('run with node --expose-gc');

const record = (id: number): RequestRecord => ({ id: `r${id}`, headers: { host: `h${id}` }, payload: new Array<number>(16).fill(id) });
const parts = (id: number): Parts => {
  const req = record(id);
  let status = 200;
  return { headers: req.headers, requestId: req.id, payload: req.payload, setStatus: (s) => (status = s + status) };
};
const shapes: Record<string, (id: number) => View> = {
  'getters in a literal': (id) => literalGetters(record(id)),
  'getters on a class': (id) => classGetters(record(id)),
  'spread, then a property': (id) => spreadThenAdd(parts(id)),
  'each property named': (id) => eachNamed(parts(id)),
};
for (const [name, make] of Object.entries(shapes)) {
  collect();
  const result = churn(make);
  process.stdout.write(`${name}: ${COUNT} objects, ${result.scavenges} scavenges, ${result.promotedPerObject} bytes promoted per object\n`);
}
