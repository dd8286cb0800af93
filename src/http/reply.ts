/**
 * Reply builders for handlers and the canned replies the adapters and router send themselves.
 * Error bodies follow the rpc status shape `{"code","message"}` (style guide §6) and never echo
 * input or carry stack traces; header names are lower case as HttpReply requires.
 */
import type { HttpBody, HttpReply, HttpServerOptions } from './types.js';

export type ReplyHeaders = Readonly<Record<string, string | readonly string[]>>;

const JSON_TYPE = 'application/json';
const HTML_TYPE = 'text/html; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';

/** Shared header records: replies are immutable, so builders reuse these when no extra headers. */
const JSON_HEADERS: ReplyHeaders = Object.freeze({ 'content-type': JSON_TYPE, 'x-content-type-options': 'nosniff' });
const HTML_HEADERS: ReplyHeaders = Object.freeze({ 'content-type': HTML_TYPE });
const TEXT_HEADERS: ReplyHeaders = Object.freeze({ 'content-type': TEXT_TYPE, 'x-content-type-options': 'nosniff' });

function withHeaders(base: ReplyHeaders, extra: ReplyHeaders | undefined): ReplyHeaders {
  return extra === undefined ? base : { ...base, ...extra };
}

/**
 * Header records sent unchanged on many replies: those of `jsonHeadersWith` and of replies marked
 * by `shareReply`. An adapter may keep them encoded for writing (uws-adapter.ts).
 */
const sharedHeaderSets = new WeakSet<object>();

/**
 * The JSON reply headers plus `extra`, built once by a caller that sends them on every reply (hot
 * paths). Frozen and marked shared: an adapter may keep them encoded for writing, as for a
 * shared reply (`hasSharedHeaders`), so a per-request reply carrying them costs no header walk.
 */
export function jsonHeadersWith(extra: ReplyHeaders): ReplyHeaders {
  const headers = Object.freeze({ ...JSON_HEADERS, ...extra });
  sharedHeaderSets.add(headers);
  return headers;
}

/** A JSON reply; `body` goes through JSON.stringify. */
export function json(status: number, body: unknown, headers?: ReplyHeaders): HttpReply {
  return { status, headers: withHeaders(JSON_HEADERS, headers), body: JSON.stringify(body) };
}

/** An HTML reply; the router adds the security headers (CSP, frame options, ...). */
export function html(status: number, text: string, headers?: ReplyHeaders): HttpReply {
  return { status, headers: withHeaders(HTML_HEADERS, headers), body: text };
}

/** A plain-text reply. */
export function text(status: number, body: string, headers?: ReplyHeaders): HttpReply {
  return { status, headers: withHeaders(TEXT_HEADERS, headers), body };
}

/** A reply without a body (204, 304, or a status whose meaning is in the headers). */
export function empty(status: number, headers?: ReplyHeaders): HttpReply {
  return headers === undefined ? { status } : { status, headers };
}

/** A redirect; `location` must already be an absolute or path-absolute, encoded URI. */
export function redirect(location: string, status = 302): HttpReply {
  return { status, headers: { location, 'cache-control': 'no-store' } };
}

/** Parses a raw query string (without `?`); `+` is a space, as in forms. */
export function parseQuery(query: string): URLSearchParams {
  return new URLSearchParams(query);
}

/** True for an AsyncIterable body (streamed), false for a string or bytes. */
export function isStreamBody(body: HttpBody): body is AsyncIterable<Uint8Array> {
  return typeof body !== 'string' && !(body instanceof Uint8Array);
}

/** The byte length the body will have, when known without reading a stream. */
export function knownBodyLength(reply: HttpReply): number | undefined {
  const body = reply.body;
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.byteLength;
  const declared = reply.headers?.['content-length'];
  const length = typeof declared === 'string' && declared !== '' ? Number(declared) : Number.NaN;
  if (Number.isSafeInteger(length) && length >= 0) return length;
  return body === undefined ? 0 : undefined;
}

/** Lets a stream's producer release what it holds once nobody reads; its failure changes nothing. */
export async function releaseStream(iterator: AsyncIterator<Uint8Array>): Promise<void> {
  try {
    await iterator.return?.();
  } catch {
    // the client is gone; there is no one to tell
  }
}

const UNSAFE_HEADER_VALUE = /[\r\n\0]/;

/**
 * Throws when a header value could split the response (CR, LF, NUL). node:http checks this
 * itself; uWS writes what it is given, so its adapter calls this before writing anything.
 */
export function assertSafeHeaders(headers: HttpReply['headers']): void {
  if (headers === undefined) return;
  for (const name in headers) {
    const value = headers[name] as string | readonly string[]; // own key from the for-in
    const unsafe = typeof value === 'string' ? UNSAFE_HEADER_VALUE.test(value) : value.some((v) => UNSAFE_HEADER_VALUE.test(v));
    if (unsafe) throw new Error(`reply header ${name} contains CR, LF or NUL`);
  }
}

/**
 * Marks a reply built once and sent unchanged to many requests (its headers object must never
 * change): its headers join the shared header records.
 */
export function shareReply<R extends HttpReply>(reply: R): R {
  if (reply.headers !== undefined) sharedHeaderSets.add(reply.headers);
  return reply;
}

/** Whether a reply's headers never change: a record of `jsonHeadersWith` or of a shared reply. */
export function hasSharedHeaders(headers: HttpReply['headers']): boolean {
  return headers !== undefined && sharedHeaderSets.has(headers);
}

/** A pre-serialised rpc-status error reply, shared by every request that gets it. */
function cannedError(status: number, code: number, message: string): HttpReply {
  return Object.freeze({ status, headers: JSON_HEADERS, body: JSON.stringify({ code, message }) });
}

export const notFoundReply: HttpReply = cannedError(404, 5, 'Not Found');
export const methodNotAllowedBody: string = JSON.stringify({ code: 12, message: 'Method Not Allowed' });
export const malformedPathReply: HttpReply = cannedError(400, 3, 'malformed path');
export const malformedRequestReply: HttpReply = cannedError(400, 3, 'malformed HTTP request');
export const payloadTooLargeReply: HttpReply = cannedError(413, 8, 'request body too large');
export const requestTimeoutReply: HttpReply = cannedError(408, 4, 'request body timeout');
export const internalErrorReply: HttpReply = cannedError(500, 13, 'internal error');

/** 431 (RFC 6585 §5) naming the limits, built once per server. */
export function headersTooLargeReply(options: HttpServerOptions): HttpReply {
  return cannedError(431, 3, `request header fields too large: at most ${options.maxHeaderCount} fields of ${options.maxHeaderBytes} bytes in total are accepted`);
}

/** The bytes of a whole HTTP/1.1 reply, for answering on a socket no response object owns. */
export function rawReply(reply: HttpReply, statusText: string): string {
  const body = typeof reply.body === 'string' ? reply.body : '';
  return `HTTP/1.1 ${reply.status} ${statusText}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}
export const jsonHeaders: ReplyHeaders = JSON_HEADERS;

/**
 * The body limit by raw path: `bodyLimits` overrides `maxBodyBytes` for exact paths. Built once
 * per server (a Map, so a path like `constructor` never reaches Object.prototype).
 */
export function bodyLimitLookup(options: HttpServerOptions): (path: string) => number {
  const fallback = options.maxBodyBytes;
  const limits = new Map(Object.entries(options.bodyLimits ?? {}));
  return limits.size === 0 ? () => fallback : (path) => limits.get(path) ?? fallback;
}
