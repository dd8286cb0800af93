/**
 * gRPC-web text mode (`application/grpc-web-text`, `+proto`), the default of the official
 * grpc-web client: the same frames as binary gRPC-web, base64-encoded both ways (grpc/grpc
 * doc/PROTOCOL-WEB.md). The request is decoded here and handed to the binary handler; its
 * answer (one unary message and the trailer frame) is encoded back in one piece.
 */
import type { UniversalServerRequest, UniversalServerResponse } from '@connectrpc/connect/protocol';

const TEXT_TYPE = 'application/grpc-web-text';
const BINARY_TYPE = 'application/grpc-web+proto';

export function isGrpcWebText(contentType: string): boolean {
  return contentType === TEXT_TYPE || contentType.startsWith(`${TEXT_TYPE}+proto`) || contentType.startsWith(`${TEXT_TYPE};`);
}

/** Base64 text; a client may send several padded pieces one after the other. */
export function decodeTextBody(body: Buffer): Buffer {
  const pieces = body.toString('latin1').replace(/\s+/g, '').split(/(?<==)(?=[^=])/);
  return Buffer.concat(pieces.map((piece) => Buffer.from(piece, 'base64')));
}

/** The request as the binary gRPC-web handler expects it. */
export function toBinaryRequest(request: UniversalServerRequest, body: Buffer): UniversalServerRequest {
  const header = new Headers(request.header);
  header.set('content-type', BINARY_TYPE);
  header.delete('content-length');
  return { ...request, header, body: singleChunk(body) };
}

/** The binary handler's answer, base64-encoded whole, typed as text again. */
export async function toTextResponse(response: UniversalServerResponse): Promise<UniversalServerResponse> {
  const header = new Headers(response.header);
  if (!(header.get('content-type') ?? '').startsWith('application/grpc-web')) return response; // 415, 405: no frames
  header.set('content-type', `${TEXT_TYPE}+proto`);
  const chunks: Uint8Array[] = [];
  for await (const chunk of (response.body as AsyncIterable<Uint8Array> | undefined) ?? []) chunks.push(chunk);
  return { ...response, header, body: singleChunk(Buffer.from(Buffer.concat(chunks).toString('base64'), 'latin1')) };
}

async function* singleChunk(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  if (bytes.byteLength > 0) yield bytes;
}
