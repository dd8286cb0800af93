/**
 * Request and response conditions around an RPC handler (reference facts §3.4): each target
 * gets the payload with the message as the previous target left it; a `rest_request_response`
 * answer (the bare message in proto3 JSON, snake_case accepted) replaces the message. The
 * replaced request then goes through the handler's normal validation.
 */
import { fromJson, toJson, type DescMessage, type Message } from '@bufbuild/protobuf';
import { failedPrecondition } from '../../actors/index.js';
import type { TargetRunner } from './runner.js';
import type { ResolvedTarget } from './target-call.js';

/** Who called what: the caller fields of the payload. */
export interface CallInfo {
  readonly fullMethod: string;
  readonly instanceId: string;
  /** The caller's organization, user and (for tokens of an app) project. */
  readonly orgId: string;
  readonly userId: string;
  readonly projectId: string;
  /** Lower-case header names, as the transports deliver them. */
  readonly headers: Readonly<Record<string, string>>;
}

/** Incoming headers a target may see (never Authorization or Cookie). */
const FORWARDED_HEADERS: Readonly<Record<string, string>> = {
  'user-agent': 'User-Agent',
  'x-forwarded-for': 'X-Forwarded-For',
  'x-forwarded-host': 'X-Forwarded-Host',
  'x-forwarded-proto': 'X-Forwarded-Proto',
  forwarded: 'Forwarded',
  'accept-language': 'Accept-Language',
  'x-request-id': 'X-Request-Id',
  traceparent: 'Traceparent',
};

export interface RunCallOptions {
  readonly targets: readonly ResolvedTarget[];
  readonly runner: TargetRunner;
  readonly info: CallInfo;
  readonly requestSchema: DescMessage;
  /** Absent for request conditions. */
  readonly response?: { readonly schema: DescMessage; readonly message: Message };
  readonly request: Message;
}

/** Runs the targets in order; returns the (possibly replaced) request or response message. */
export async function runCallTargets(options: RunCallOptions): Promise<Message> {
  const { info, runner, requestSchema, response } = options;
  const schema = response?.schema ?? requestSchema;
  let message = response?.message ?? options.request;
  const trigger = `${response === undefined ? 'request' : 'response'}${info.fullMethod}`;
  for (const target of options.targets) {
    const payload = {
      fullMethod: info.fullMethod,
      instanceID: info.instanceId,
      orgID: info.orgId,
      projectID: info.projectId,
      userID: info.userId,
      request: toJson(requestSchema, response === undefined ? message : options.request),
      ...(response === undefined ? {} : { response: toJson(schema, message) }),
      headers: forwardedHeaders(info.headers),
    };
    const result = await runner.run(target, JSON.stringify(payload), { instanceId: info.instanceId, trigger });
    if (!result.ok || target.targetType !== 'rest_request_response') continue;
    try {
      message = parseAnswer(schema, result.answer);
    } catch (err) {
      if (target.executionType === 'interrupt') throw err;
      runner.logFailure(err, target, { instanceId: info.instanceId, trigger });
    }
  }
  return message;
}

function parseAnswer(schema: DescMessage, answer: unknown): Message {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
    throw failedPrecondition('execution.invalid_answer', 'the target answer is not a message');
  }
  try {
    return fromJson(schema, answer as Parameters<typeof fromJson>[1], { ignoreUnknownFields: true });
  } catch (err) {
    throw failedPrecondition('execution.invalid_answer', 'the target answer does not match the message', { cause: err });
  }
}

function forwardedHeaders(headers: Readonly<Record<string, string>>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, canonical] of Object.entries(FORWARDED_HEADERS)) {
    const value = headers[name];
    if (value !== undefined) out[canonical] = [value];
  }
  return out;
}
