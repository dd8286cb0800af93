/**
 * The one error hierarchy of Tessera. Domain code throws these; the edges map them once
 * (src/http/error-mapping.ts) to HTTP status, gRPC code and the rpcStatus body.
 * `message` is safe to show to clients and never echoes user input; `detail` is for logs.
 */
import type { ErrorCode } from './error-codes.js';

export type { ErrorCode } from './error-codes.js';

/** The rpc status kinds an error can have (gRPC code names, lower snake case). */
export type ErrorKind =
  | 'invalid_argument'
  | 'failed_precondition'
  | 'out_of_range'
  | 'unauthenticated'
  | 'permission_denied'
  | 'not_found'
  | 'already_exists'
  | 'aborted'
  | 'resource_exhausted'
  | 'cancelled'
  | 'internal'
  | 'unimplemented'
  | 'unavailable'
  | 'deadline_exceeded';

/** A field that failed validation: dotted path in JSON (lowerCamelCase) names, and why. */
export interface FieldViolation {
  readonly field: string;
  readonly description: string;
}

export interface AppErrorOptions {
  /** Diagnostics for logs only; never sent to a client, never holds secrets. */
  readonly detail?: string;
  readonly cause?: unknown;
  readonly violations?: readonly FieldViolation[];
  /** Seconds after which the caller may try again (sent as Retry-After); for temporary failures. */
  readonly retryAfterSeconds?: number;
}

/** Base of every error Tessera reports to a caller. */
export class AppError extends Error {
  readonly kind: ErrorKind;
  /** Stable, dotted, lower snake case code such as `target.not_found` (error-codes.ts). */
  readonly code: ErrorCode;
  readonly detail: string | undefined;
  readonly violations: readonly FieldViolation[];
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: ErrorKind, code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.kind = kind;
    this.code = code;
    this.detail = options.detail;
    this.violations = options.violations ?? [];
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function invalidArgument(code: ErrorCode, message: string, options?: AppErrorOptions): AppError {
  return new AppError('invalid_argument', code, message, options);
}

export function failedPrecondition(code: ErrorCode, message: string, options?: AppErrorOptions): AppError {
  return new AppError('failed_precondition', code, message, options);
}

export function notFound(code: ErrorCode, message: string, options?: AppErrorOptions): AppError {
  return new AppError('not_found', code, message, options);
}

export function alreadyExists(code: ErrorCode, message: string, options?: AppErrorOptions): AppError {
  return new AppError('already_exists', code, message, options);
}

export function permissionDenied(code: ErrorCode, message: string, options?: AppErrorOptions): AppError {
  return new AppError('permission_denied', code, message, options);
}

export function unauthenticated(code: ErrorCode, message: string, options?: AppErrorOptions): AppError {
  return new AppError('unauthenticated', code, message, options);
}

export function aborted(code: ErrorCode, message: string, options?: AppErrorOptions): AppError {
  return new AppError('aborted', code, message, options);
}

export function resourceExhausted(code: ErrorCode, message: string, options?: AppErrorOptions): AppError {
  return new AppError('resource_exhausted', code, message, options);
}

export function unimplemented(code: ErrorCode, message: string, options?: AppErrorOptions): AppError {
  return new AppError('unimplemented', code, message, options);
}

/** A dependency (the database) cannot be reached right now: 503 with Retry-After. */
export function unavailable(code: ErrorCode, message: string, options?: AppErrorOptions): AppError {
  return new AppError('unavailable', code, message, options);
}

export function internalError(code: ErrorCode, message: string, options?: AppErrorOptions): AppError {
  return new AppError('internal', code, message, options);
}

/** A validation failure listing every offending field. */
export function validationFailed(violations: readonly FieldViolation[], code: ErrorCode = 'request.invalid'): AppError {
  const fields = violations.map((v) => v.field || '(body)').join(', ');
  return new AppError('invalid_argument', code, `invalid request: ${describeViolations(violations)}`, {
    violations,
    detail: fields,
  });
}

function describeViolations(violations: readonly FieldViolation[]): string {
  return violations
    .slice(0, 5)
    .map((v) => (v.field ? `${v.field}: ${v.description}` : v.description))
    .join('; ');
}

/** Registered OAuth 2.0 / OIDC error codes Tessera returns. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'invalid_target'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'access_denied'
  | 'login_required'
  | 'interaction_required'
  | 'consent_required'
  | 'account_selection_required'
  | 'request_not_supported'
  | 'request_uri_not_supported'
  | 'server_error'
  | 'temporarily_unavailable';

/** An error of an OAuth / OIDC protocol endpoint. */
export class OAuthError extends AppError {
  readonly oauthCode: OAuthErrorCode;
  /** False whenever the redirect URI or client is in doubt: then never redirect. */
  readonly redirectable: boolean;

  constructor(
    oauthCode: OAuthErrorCode,
    message: string,
    options: AppErrorOptions & { redirectable?: boolean; kind?: ErrorKind } = {},
  ) {
    super(options.kind ?? kindOfOAuthCode(oauthCode), `oauth.${oauthCode}`, message, options);
    this.name = 'OAuthError';
    this.oauthCode = oauthCode;
    this.redirectable = options.redirectable ?? true;
  }
}

function kindOfOAuthCode(code: OAuthErrorCode): ErrorKind {
  switch (code) {
    case 'invalid_client':
    case 'invalid_token':
      return 'unauthenticated';
    case 'access_denied':
    case 'insufficient_scope':
      return 'permission_denied';
    case 'server_error':
      return 'internal';
    case 'temporarily_unavailable':
      return 'unavailable';
    default:
      return 'invalid_argument';
  }
}

/** Misuse of Tessera's own APIs: always `internal`, never turned into a 4xx. */
export class ProgrammerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProgrammerError';
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
