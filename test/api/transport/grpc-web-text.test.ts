/**
 * gRPC-web text mode (`application/grpc-web-text`, the official grpc-web client's default): base64
 * frames both ways, as the client sends them (one piece, or several padded pieces in a row),
 * with the same answers and errors as binary gRPC-web (issue #16).
 */
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetOrganizationRequestSchema, GetOrganizationResponseSchema } from '../../../src/gen/platform/resources/org/v3alpha/org_service_pb.js';
import { createOrgFixture, type OrgFixture } from './org-invoker.fixture.js';
import { startServers, type StartedServers } from './servers.fixture.js';

const PATH = '/platform.resources.org.v3alpha.PlatformOrganizations/GetOrganization';

let fixture: OrgFixture;
let servers: StartedServers;
beforeAll(async () => {
  fixture = createOrgFixture();
  servers = await startServers(fixture.invoke);
});
afterAll(() => servers.close());

function frame(flags: number, payload: Uint8Array): Buffer {
  const head = Buffer.alloc(5);
  head[0] = flags;
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

function frames(body: Buffer): { messages: Buffer[]; trailers: Record<string, string> } {
  const messages: Buffer[] = [];
  let trailers: Record<string, string> = {};
  for (let at = 0; at + 5 <= body.length; ) {
    const length = body.readUInt32BE(at + 1);
    const payload = body.subarray(at + 5, at + 5 + length);
    if ((body[at]! & 0x80) === 0) messages.push(payload);
    else trailers = Object.fromEntries(payload.toString('latin1').split('\r\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]));
    at += 5 + length;
  }
  return { messages, trailers };
}

async function callText(body: string, contentType = 'application/grpc-web-text') {
  const response = await fetch(`${servers.baseUrl}${PATH}`, { method: 'POST', headers: { 'content-type': contentType, accept: 'application/grpc-web-text', 'x-grpc-web': '1' }, body });
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), ...frames(Buffer.from(text, 'base64')) };
}

const request = (id: string) => frame(0, toBinary(GetOrganizationRequestSchema, create(GetOrganizationRequestSchema, { id })));

describe('gRPC-web text mode', () => {
  it.each(['application/grpc-web-text', 'application/grpc-web-text+proto'])('answers %s in base64 frames', async (contentType) => {
    const answer = await callText(request('42').toString('base64'), contentType);
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe('application/grpc-web-text+proto');
    expect(answer.trailers['grpc-status']).toBe('0');
    expect(answer.messages).toHaveLength(1);
    expect(fromBinary(GetOrganizationResponseSchema, answer.messages[0]!).organization?.details?.id).toBe('42');
  });

  it('reads a request sent as several padded base64 pieces', async () => {
    const bytes = request('42');
    const pieces = bytes.subarray(0, 4).toString('base64') + bytes.subarray(4).toString('base64'); // "…==" in the middle
    expect(pieces.slice(0, 8)).toContain('=');
    const answer = await callText(pieces);
    expect(answer.trailers['grpc-status']).toBe('0');
  });

  it('carries errors in the trailer frame: not_found, and garbage as invalid_argument', async () => {
    expect((await callText(request('999').toString('base64'))).trailers['grpc-status']).toBe('5');
    expect((await callText(frame(0, Buffer.from([0x09])).toString('base64'))).trailers['grpc-status']).toBe('3');
  });
});
