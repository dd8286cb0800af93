/**
 * OpenTelemetry tracing of a started node, exported over OTLP/HTTP (JSON) to a receiver this
 * test runs on 127.0.0.1: an API request continuing the caller's `traceparent` yields a server
 * span named by its route template, an RPC span, actor-ask and store-append spans in the same
 * trace, and the webhook an execution calls gets a client span and the `traceparent` of that
 * trace; a gRPC port call continues its metadata's trace; a mail sent by an SMTP provider's
 * `_test` to a real SMTP server (smtp-server) is a client span `smtp send` in its caller's
 * trace, and one the server refuses is marked as an error. Positive control for "off": a node
 * without the endpoint exports nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformProjects } from '../../src/gen/platform/resources/project/v3alpha/project_service_pb.js';
import { api, startTestNode, type TestNode } from './harness.js';
import { startTargetServer, type TargetServer } from './targets.fixture.js';

interface ExportedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: { key: string; value: Record<string, unknown> }[];
  /** OTLP status; code 2 is STATUS_CODE_ERROR, absent or 0 unset. */
  readonly status?: { code?: number; message?: string };
}

/** An OTLP/HTTP receiver: every span of every export request, flattened. */
async function startReceiver(): Promise<{ url: string; spans: ExportedSpan[]; requests: () => number; close(): Promise<void> }> {
  const spans: ExportedSpan[] = [];
  let requests = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests += 1;
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { resourceSpans: { scopeSpans: { spans: ExportedSpan[] }[] }[] };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    spans,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const MAIL_TRACE_ID = '5bf92f3577b34da6a3ce929d0e0e4737';
const REFUSED_TRACE_ID = '6bf92f3577b34da6a3ce929d0e0e4738';
const GRPC_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const traceparent = (traceId: string) => `00-${traceId}-00f067aa0ba902b7-01`;
const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;

describe('tracing over OTLP', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let targets: TargetServer;
  let node: TestNode;
  let webhookTraceparent: string | undefined;
  let smtp: SMTPServer;
  let delivered = 0;

  beforeAll(async () => {
    receiver = await startReceiver();
    targets = await startTargetServer();
    // A real SMTP server that takes mail for anyone but refuses the recipient refused@example.org.
    smtp = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo(address, _session, callback) {
        if (address.address === 'refused@example.org') return callback(Object.assign(new Error('no such mailbox'), { responseCode: 550 }));
        return callback();
      },
      onData(stream, _session, callback) {
        stream.resume();
        stream.on('end', () => {
          delivered += 1;
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    node = await startTestNode({ env: { TESSERA_OTLP_TRACES_ENDPOINT: receiver.url, TESSERA_DEFAULT_FEATURES: 'multitenancy_resources_api' } });
    const call = api(node);
    const target = await call('POST', '/resources/v3alpha/targets', { name: 'traced', restWebhook: { url: targets.url('/hook') }, timeout: '5s' });
    expect(target.status).toBe(201);
    const execution = await call('POST', '/resources/v3alpha/executions', { condition: { request: { method: '/platform.resources.project.v3alpha.PlatformProjects/CreateProject' } }, targets: [target.body.details.id] });
    expect(execution.status).toBe(201);
    const created = await call('POST', '/resources/v3alpha/projects', { name: 'Traced' }, { traceparent: traceparent(TRACE_ID) });
    expect(created.status).toBe(201);
    webhookTraceparent = targets.callsTo('/hook')[0]?.headers.traceparent as string | undefined;
    const grpc = createClient(PlatformProjects, createGrpcTransport({ baseUrl: node.grpcUrl }));
    await grpc.getProject({ id: created.body.details.id }, { headers: { authorization: `Bearer ${node.adminToken}`, traceparent: traceparent(GRPC_TRACE_ID) } });
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    const mailer = await call('POST', '/resources/v3alpha/smtp_providers', { description: 'traced', host: '127.0.0.1', port: smtpPort, tlsMode: 'SMTP_TLS_MODE_NONE', senderAddress: 'noreply@tessera.example' });
    expect(mailer.status, JSON.stringify(mailer.body)).toBe(201);
    const sent = await call('POST', `/resources/v3alpha/smtp_providers/${mailer.body.details.id}/_test`, { address: 'alice@example.org' }, { traceparent: traceparent(MAIL_TRACE_ID) });
    expect(sent.body.success).toBe(true);
    const refused = await call('POST', `/resources/v3alpha/smtp_providers/${mailer.body.details.id}/_test`, { address: 'refused@example.org' }, { traceparent: traceparent(REFUSED_TRACE_ID) });
    expect(refused.status).toBe(200);
    expect(refused.body.success).toBeUndefined(); // proto3 JSON leaves false out
    await node.stop(); // flushes the batch
  });
  afterAll(async () => {
    node.cleanup();
    await targets.close();
    await receiver.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  const inTrace = (traceId: string) => receiver.spans.filter((s) => s.traceId === traceId);

  it('continues the caller’s traceparent with a server span named by the route template', () => {
    const server = inTrace(TRACE_ID).find((s) => s.kind === SPAN_KIND_SERVER);
    expect(server?.name).toBe('POST /resources/v3alpha/projects');
    expect(server?.parentSpanId).toBe('00f067aa0ba902b7');
    expect(server?.attributes).toContainEqual({ key: 'http.response.status_code', value: { intValue: 201 } });
  });

  it('records the RPC, the actor ask and the store append inside that trace', () => {
    const names = inTrace(TRACE_ID).map((s) => s.name);
    expect(names).toContain('rpc platform.resources.project.v3alpha.PlatformProjects/CreateProject');
    expect(names.some((n) => n.startsWith('actor.ask'))).toBe(true);
    expect(names).toContain('store.append');
    const byId = new Map(inTrace(TRACE_ID).map((s) => [s.spanId, s]));
    const append = inTrace(TRACE_ID).find((s) => s.name === 'store.append')!;
    expect(byId.get(append.parentSpanId!)?.name.startsWith('actor.ask')).toBe(true); // nested, not a sibling
  });

  it('gives the webhook call a client span and sends it the trace', () => {
    const client = inTrace(TRACE_ID).find((s) => s.kind === SPAN_KIND_CLIENT);
    expect(client?.name).toBe('POST');
    expect(webhookTraceparent).toMatch(new RegExp(`^00-${TRACE_ID}-${client?.spanId}-01$`));
  });

  it('gives a mail sent over SMTP a client span in its caller’s trace, an error when the server refuses it', () => {
    expect(delivered).toBe(1); // the accepted mail arrived, the refused one did not
    const sent = inTrace(MAIL_TRACE_ID).find((s) => s.name === 'smtp send');
    expect(sent?.kind).toBe(SPAN_KIND_CLIENT);
    expect(sent?.attributes).toContainEqual({ key: 'server.address', value: { stringValue: '127.0.0.1' } });
    expect(sent?.status?.code ?? 0).not.toBe(2);
    const refused = inTrace(REFUSED_TRACE_ID).find((s) => s.name === 'smtp send');
    expect(refused?.kind).toBe(SPAN_KIND_CLIENT);
    expect(refused?.status?.code).toBe(2); // STATUS_CODE_ERROR
  });

  it('continues the traceparent metadata of a call on the gRPC port', () => {
    const rpc = inTrace(GRPC_TRACE_ID).find((s) => s.name === 'rpc platform.resources.project.v3alpha.PlatformProjects/GetProject');
    expect(rpc?.kind).toBe(SPAN_KIND_SERVER);
    expect(rpc?.parentSpanId).toBe('00f067aa0ba902b7');
  });
});

describe('tracing off', () => {
  it('exports nothing and sends no traceparent without TESSERA_OTLP_TRACES_ENDPOINT', async () => {
    const receiver = await startReceiver();
    const targets = await startTargetServer();
    const node = await startTestNode({ env: { TESSERA_DEFAULT_FEATURES: 'multitenancy_resources_api' } });
    try {
      const call = api(node);
      const target = await call('POST', '/resources/v3alpha/targets', { name: 'untraced', restWebhook: { url: targets.url('/hook') }, timeout: '5s' });
      await call('POST', '/resources/v3alpha/executions', { condition: { request: { method: '/platform.resources.project.v3alpha.PlatformProjects/CreateProject' } }, targets: [target.body.details.id] });
      expect((await call('POST', '/resources/v3alpha/projects', { name: 'Untraced' }, { traceparent: traceparent(TRACE_ID) })).status).toBe(201);
      expect(targets.callsTo('/hook')).toHaveLength(1); // positive control: the webhook was called
      expect(targets.callsTo('/hook')[0]!.headers.traceparent).toBeUndefined();
    } finally {
      await node.stop();
      node.cleanup();
      await targets.close();
      await receiver.close();
    }
    expect(receiver.requests()).toBe(0);
  });
});
