/**
 * Request messages that cannot be decoded are the client's error on every transport (issue #12
 * items 7, 8, 11): garbage protobuf and JSON whose parse error would split a surrogate pair get
 * 400 / INVALID_ARGUMENT with a fixed, well-formed message on Connect, gRPC-web and the gRPC
 * port, never 500 / INTERNAL nor a stream left without an answer, and the invoker is never
 * called. A refused request encoding names the supported ones.
 */
import { connect as http2Connect, type IncomingHttpHeaders } from 'node:http2';
import { Client, credentials, status as grpcStatus, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOrgFixture, type OrgFixture } from './org-invoker.fixture.js';
import { startServers, type StartedServers } from './servers.fixture.js';

const PATH = '/platform.resources.org.v3alpha.PlatformOrganizations/GetOrganization';
const GARBAGE = Buffer.from([0x09]); // field 1, fixed64, but no 8 bytes follow
const EMOJI_JSON = Buffer.from('🙂'.repeat(40)); // JSON.parse's message would quote half a pair

let fixture: OrgFixture;
let servers: StartedServers;

beforeAll(async () => {
  fixture = createOrgFixture();
  servers = await startServers(fixture.invoke);
});
afterAll(() => servers.close());
beforeEach(() => {
  fixture.calls.length = 0;
});

function envelope(payload: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

/** The grpc-web trailer frame's fields. */
function grpcWebTrailers(body: Buffer): Record<string, string> {
  let at = 0;
  while (at + 5 <= body.length) {
    const length = body.readUInt32BE(at + 1);
    if ((body[at]! & 0x80) !== 0) {
      const text = body.subarray(at + 5, at + 5 + length).toString('latin1');
      return Object.fromEntries(text.split('\r\n').filter((l) => l !== '').map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    }
    at += 5 + length;
  }
  return {};
}

function expectFixedMessage(message: string): void {
  expect(message.isWellFormed()).toBe(true);
  expect(message).toContain('request.malformed');
  expect(message).not.toContain('🙂');
}

describe('Connect on the main port', () => {
  it.each([
    ['garbage protobuf', 'application/proto', GARBAGE],
    ['JSON splitting a surrogate pair', 'application/json', EMOJI_JSON],
  ])('%s → 400 invalid_argument with a well-formed message', async (_name, contentType, body) => {
    const response = await fetch(`${servers.baseUrl}${PATH}`, { method: 'POST', headers: { 'content-type': contentType }, body });
    expect(response.status).toBe(400);
    const error = (await response.json()) as { code: string; message: string; details: { type: string }[] };
    expect(error.code).toBe('invalid_argument');
    expectFixedMessage(error.message);
    expect(error.details[0]?.type).toBe('platform.v1.ErrorDetail');
    expect(fixture.calls).toHaveLength(0);
  });

  it('positive control: a well-formed message reaches the invoker', async () => {
    const response = await fetch(`${servers.baseUrl}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"42"}' });
    expect(response.status).toBe(200);
    expect(fixture.calls).toHaveLength(1);
  });

  it('a refused request encoding lists the supported ones', async () => {
    const response = await fetch(`${servers.baseUrl}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'zstd' }, body: '{}' });
    const error = (await response.json()) as { code: string; message: string };
    expect(error.code).toBe('unimplemented');
    expect(error.message).toMatch(/supported encodings are gzip,br$/);
  });
});

describe('gRPC-web on the main port', () => {
  it.each([
    ['garbage protobuf', 'application/grpc-web+proto', GARBAGE],
    ['JSON splitting a surrogate pair', 'application/grpc-web+json', EMOJI_JSON],
  ])('%s → grpc-status 3 with a well-formed message', async (_name, contentType, payload) => {
    const response = await fetch(`${servers.baseUrl}${PATH}`, { method: 'POST', headers: { 'content-type': contentType }, body: envelope(payload) });
    expect(response.status).toBe(200);
    const trailers = grpcWebTrailers(Buffer.from(await response.arrayBuffer()));
    expect(trailers['grpc-status']).toBe('3');
    expectFixedMessage(decodeURIComponent(trailers['grpc-message'] ?? ''));
    expect(fixture.calls).toHaveLength(0);
  });

  it('a refused request encoding lists the supported ones', async () => {
    const response = await fetch(`${servers.baseUrl}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/grpc-web+proto', 'grpc-encoding': 'zstd' }, body: envelope(Buffer.alloc(0)) });
    const trailers = grpcWebTrailers(Buffer.from(await response.arrayBuffer()));
    expect(trailers['grpc-status']).toBe('12');
    expect(decodeURIComponent(trailers['grpc-message'] ?? '')).toMatch(/supported encodings are gzip,br$/);
  });
});

/** One raw HTTP/2 call: status, headers and trailers, or a rejection after `ms` (a hang). */
function rawGrpcCall(port: number, contentType: string, body: Buffer, ms = 3_000): Promise<{ headers: IncomingHttpHeaders; trailers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const session = http2Connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const timer = setTimeout(() => {
      session.destroy();
      reject(new Error(`no answer within ${ms} ms`));
    }, ms);
    const stream = session.request({ ':method': 'POST', ':path': PATH, 'content-type': contentType, te: 'trailers' });
    let headers: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders = {};
    stream.on('response', (h) => (headers = h));
    stream.on('trailers', (t) => (trailers = t));
    stream.on('data', () => undefined);
    stream.on('end', () => {
      clearTimeout(timer);
      session.close();
      resolve({ headers, trailers });
    });
    stream.on('error', reject);
    stream.end(body);
  });
}

describe('the gRPC port', () => {
  it.each([
    ['garbage protobuf', 'application/grpc+proto', GARBAGE],
    ['JSON splitting a surrogate pair', 'application/grpc+json', EMOJI_JSON],
  ])('%s → answered with status 3 and a well-formed message', async (_name, contentType, payload) => {
    const { headers, trailers } = await rawGrpcCall(servers.grpcPort, contentType, envelope(payload));
    const status = trailers['grpc-status'] ?? headers['grpc-status'];
    const message = trailers['grpc-message'] ?? headers['grpc-message'];
    expect(status).toBe('3');
    expectFixedMessage(decodeURIComponent(String(message)));
    expect(fixture.calls).toHaveLength(0);
  });

  it('@grpc/grpc-js sees INVALID_ARGUMENT for a garbage message', async () => {
    const client = new Client(`127.0.0.1:${servers.grpcPort}`, credentials.createInsecure());
    try {
      const error = await new Promise<ServiceError>((resolve, reject) => {
        client.makeUnaryRequest(PATH, (b: Buffer) => b, (b: Buffer) => b, GARBAGE, (err) => (err ? resolve(err) : reject(new Error('answered'))));
      });
      expect(error.code).toBe(grpcStatus.INVALID_ARGUMENT);
      expect(fixture.calls).toHaveLength(0);
    } finally {
      client.close();
    }
  });

  it('an unknown method is answered UNIMPLEMENTED at once', async () => {
    const { headers } = await rawGrpcCallAt('/no.Such/Method');
    expect(headers['grpc-status']).toBe('12');
  });
});

function rawGrpcCallAt(path: string): Promise<{ headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const session = http2Connect(servers.grpcUrl);
    session.on('error', reject);
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' });
    stream.on('response', (headers) => {
      session.close();
      resolve({ headers });
    });
    stream.on('data', () => undefined);
    stream.on('error', reject);
    stream.end(envelope(Buffer.alloc(0)));
  });
}
