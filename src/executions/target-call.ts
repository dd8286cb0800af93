/**
 * One call of a target (reference facts §3.1): POST the JSON payload with the signature
 * header, under the target's timeout. A non-2xx status, a transport error, a timeout or a
 * forwarded error (`forwardedStatusCode` / `forwardedErrorMessage` in a 2xx body) is an
 * error; answers are read up to a size cap. Returns the parsed JSON answer (or undefined).
 * Only addresses the network policy allows are connected to (target-network.ts).
 */
import { AppError, failedPrecondition, type ErrorKind } from '../../actors/index.js';
import { SIGNATURE_HEADER, signatureHeader } from './signature.js';
import { OutboundAddressRefused, outboundRequest, PUBLIC_ONLY, readBody, type OutboundPolicy } from '../http/outbound-policy.js';

export interface ResolvedTarget {
  readonly id: string;
  readonly targetType: 'rest_webhook' | 'rest_request_response';
  readonly url: string;
  readonly timeoutMs: number;
  readonly executionType: 'none' | 'async' | 'interrupt';
  readonly signingKey: string;
  readonly previousSigningKey: string;
  readonly previousKeyExpiresAt: number;
}

export interface TargetCallOptions {
  /** Epoch milliseconds, for the signature timestamp and key expiry. */
  readonly now: number;
  /** Aborts the call early (node shutdown). */
  readonly signal?: AbortSignal;
  /** Which addresses may be connected to; default: public addresses only. */
  readonly network?: OutboundPolicy;
}

/** Answers larger than this are an error. */
export const MAX_ANSWER_BYTES = 1 << 20;

const forwardedKinds: Readonly<Record<number, ErrorKind>> = {
  400: 'invalid_argument',
  401: 'unauthenticated',
  403: 'permission_denied',
  404: 'not_found',
  409: 'already_exists',
  429: 'resource_exhausted',
};

export async function callTarget(target: ResolvedTarget, body: string, options: TargetCallOptions): Promise<unknown> {
  const signal = combine(AbortSignal.timeout(Math.max(1, Math.ceil(target.timeoutMs))), options.signal);
  let text: string;
  let status: number;
  try {
    ({ status, text } = await post(target.url, body, requestHeaders(target, body, options.now), signal, options.network ?? PUBLIC_ONLY));
  } catch (error) {
    throw transportError(error, target, signal);
  }
  if (status < 200 || status > 299) throw failedPrecondition('execution.failed', 'execution failed', { detail: `target ${target.id} answered ${status}` });
  const answer = parseJson(text);
  throwForwarded(answer);
  if (target.targetType === 'rest_request_response' && answer === undefined) {
    throw failedPrecondition('execution.invalid_answer', 'the target answered with invalid JSON', { detail: `target ${target.id}` });
  }
  return answer;
}

function requestHeaders(target: ResolvedTarget, body: string, now: number): Record<string, string> {
  const keys = target.previousSigningKey !== '' && target.previousKeyExpiresAt > now ? [target.signingKey, target.previousSigningKey] : [target.signingKey];
  return { 'content-type': 'application/json', [SIGNATURE_HEADER]: signatureHeader(body, keys, Math.floor(now / 1000)) };
}

function combine(timeout: AbortSignal, other: AbortSignal | undefined): AbortSignal {
  return other === undefined ? timeout : AbortSignal.any([timeout, other]);
}

/** POSTs under the outbound policy (checked on the address connected to); reads the answer up to the cap. */
async function post(url: string, body: string, headers: Record<string, string>, signal: AbortSignal, network: OutboundPolicy): Promise<{ status: number; text: string }> {
  const response = await outboundRequest(url, { method: 'POST', headers, body, signal }, network);
  const text = (await readBody(response, MAX_ANSWER_BYTES, () => failedPrecondition('execution.invalid_answer', 'the target answer is too large'))).toString('utf8');
  return { status: response.statusCode ?? 0, text };
}

function transportError(error: unknown, target: ResolvedTarget, signal: AbortSignal): AppError {
  if (error instanceof AppError) return error;
  const reason: unknown = signal.aborted ? signal.reason : undefined;
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    return new AppError('internal', 'execution.timeout', 'a target of the execution did not answer in time', { detail: `target ${target.id}`, cause: error });
  }
  if (error instanceof OutboundAddressRefused) {
    return failedPrecondition('execution.target_address_refused', 'execution failed: the target address is not allowed', { detail: `target ${target.id}: ${error.message}`, cause: error });
  }
  return failedPrecondition('execution.failed', 'execution failed', { detail: `target ${target.id} unreachable`, cause: error });
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A 2xx answer carrying `forwardedStatusCode` / `forwardedErrorMessage` rejects the call. */
function throwForwarded(answer: unknown): void {
  if (typeof answer !== 'object' || answer === null) return;
  const { forwardedStatusCode: code, forwardedErrorMessage: message } = answer as Record<string, unknown>;
  if (code === undefined && message === undefined) return;
  const kind = typeof code === 'number' ? (forwardedKinds[code] ?? 'failed_precondition') : 'failed_precondition';
  const text = typeof message === 'string' && message !== '' ? message.slice(0, 500) : 'the execution rejected the request';
  throw new AppError(kind, 'execution.forwarded_error', text);
}
