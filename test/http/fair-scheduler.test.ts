/**
 * Fair admission across instances on both HTTP adapters, with the scheduler forced on (the loop
 * always counted as behind, one request in flight): instance A's flood waits in A's lane, instance B's request starts within
 * one turn instead of after A's backlog, and A's overflow is answered 503 at once (OAuth shape on
 * an OAuth path) while B is served. Ordering is asserted on the order handlers were entered.
 */
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { FairScheduler, laneFullReply } from '../../src/http/fair-scheduler.js';
import { nodeAdapter } from '../../src/http/node-adapter.js';
import { json } from '../../src/http/reply.js';
import type { HttpAdapter, HttpHandler, ListeningServer } from '../../src/http/types.js';
import { gate, serverOptions } from './adapters.fixture.js';
import { UWS_SKIP_REASON, uwsAdapter } from './uws.fixture.js';

interface Answer {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly body: string;
}

/** One request on its own connection, with the Host that picks its lane. */
function get(port: number, host: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers: { host }, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Waits (without a clock) until `done` holds, yielding to I/O between checks. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}

const adapters: { name: string; adapter: HttpAdapter; skip: string | undefined }[] = [
  { name: 'uws', adapter: uwsAdapter ?? nodeAdapter, skip: UWS_SKIP_REASON },
  { name: 'node', adapter: nodeAdapter, skip: undefined },
];

for (const { name, adapter, skip } of adapters) {
  describe.skipIf(skip !== undefined)(`fair scheduler on the ${name} adapter`, () => {
    let server: ListeningServer | undefined;
    afterEach(async () => {
      await server?.close(0);
      server = undefined;
    });

    it("starts instance B's request before instance A's backlog drains, and refuses A's overflow with 503", async () => {
      const entered: string[] = [];
      const firstA = gate();
      const release = gate();
      const handler: HttpHandler = async (req) => {
        const host = req.headers['host'] ?? '';
        entered.push(host);
        if (host === 'a.test') {
          firstA.open();
          await release.promise;
        }
        return json(200, { host });
      };
      const fair = new FairScheduler({ maxInFlight: 1, queueCapacity: 5, turnBudget: 16, maxWaitMs: 60_000, laneOf: (req) => req.headers['host'], lagMs: 0 });
      server = await adapter.listen(handler, { ...serverOptions, fair });
      const port = server.port;

      const running = get(port, 'a.test', '/oauth/v2/token'); // starts from its lane at once: nothing is in flight
      await firstA.promise;
      const flood = Array.from({ length: 8 }, () => get(port, 'a.test', '/oauth/v2/token'));
      let refusals = 0;
      for (const answer of flood) void answer.then((a) => (a.status === 503 ? (refusals += 1) : undefined));
      await until(() => refusals === 3); // 5 wait in A's lane, 3 are refused at once
      expect(fair.queued).toBe(5);
      const b = get(port, 'b.test', '/quick');
      await until(() => fair.queued === 6);
      release.open();

      const answerB = await b;
      expect(answerB.status).toBe(200); // B is not refused
      const answersA = await Promise.all([running, ...flood]);
      // B started in the first turn after the running request: A's backlog was still waiting.
      expect(entered).toEqual(['a.test', 'a.test', 'b.test', 'a.test', 'a.test', 'a.test', 'a.test']);
      const refused = answersA.filter((a) => a.status === 503);
      expect(refused).toHaveLength(3);
      expect(answersA.filter((a) => a.status === 200)).toHaveLength(6);
      for (const answer of refused) {
        expect(answer.retryAfter).toBe('1');
        expect(JSON.parse(answer.body)).toMatchObject({ error: 'temporarily_unavailable' });
      }
      expect(fair.inFlight).toBe(0);
      expect(fair.queued).toBe(0);
      expect(fair.refused).toBe(3);
    });

    it('lets requests past maxInFlight run at once while the event loop keeps up (handlers waiting on I/O hold no one up), and starts waiting ones once it caught up', async () => {
      const release = gate();
      const heldEntered = gate();
      const handler: HttpHandler = async (req) => {
        if (req.path === '/held') {
          heldEntered.open();
          await release.promise;
        }
        return json(200, {});
      };
      const fair = new FairScheduler({ maxInFlight: 1, queueCapacity: 5, turnBudget: 16, maxWaitMs: 60_000, laneOf: (req) => req.headers['host'], lagMs: 60_000 });
      fair.close(); // the test takes the samples
      try {
        server = await adapter.listen(handler, { ...serverOptions, fair });
        const port = server.port;
        const held = get(port, 'a.test', '/held');
        await heldEntered.promise;
        // Control: while the loop counts as behind, the next request waits...
        fair.lagging = true;
        const waiting = get(port, 'a.test', '/next');
        await until(() => fair.queued === 1);
        // ...and starts once a sample finds the loop caught up, with the held request still in flight.
        fair.sample();
        expect((await waiting).status).toBe(200);
        expect(fair.inFlight).toBe(1);
        // Not behind: past maxInFlight, a request runs at once.
        expect(fair.lagging).toBe(false);
        expect((await get(port, 'b.test', '/now')).status).toBe(200);
        expect(fair.queued).toBe(0);
        release.open();
        expect((await held).status).toBe(200);
      } finally {
        release.open();
      }
    });
  });
}

describe('laneFullReply', () => {
  it('answers the OAuth error shape on OAuth and OIDC endpoints and google.rpc.Status elsewhere, both 503 with Retry-After', () => {
    const oauth = laneFullReply('/oidc/v1/userinfo');
    expect(oauth.status).toBe(503);
    expect(oauth.headers?.['retry-after']).toBe('1');
    expect(JSON.parse(oauth.body as string)).toMatchObject({ error: 'temporarily_unavailable' });
    const rpc = laneFullReply('/resources/v3alpha/organizations');
    expect(rpc.status).toBe(503);
    expect(rpc.headers?.['retry-after']).toBe('1');
    expect(JSON.parse(rpc.body as string)).toMatchObject({ code: 14, details: [{ id: 'http.queue_full' }] });
  });
});
