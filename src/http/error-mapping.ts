/**
 * The one place errors become wire errors (style guide §6): error kind → HTTP status, gRPC
 * code and rpcStatus body (reference facts §2.3), for JSON and for Connect / gRPC alike
 * (src/api/transport/connect-error.ts carries the same mapping as a ConnectError; it is kept
 * apart so that the OAuth endpoints do not load Connect and the descriptors, #13).
 * Anything that is not an AppError is `internal` with a fixed message: nothing of the
 * original error (message, stack) reaches the client; it stays in `appError.cause` for logs.
 */
import { AppError, type ErrorKind } from '../../actors/index.js';

/** gRPC status codes (grpc/doc/statuscodes.md), the numbers of Connect's `Code`. */
export const GrpcCode = {
  Canceled: 1,
  InvalidArgument: 3,
  DeadlineExceeded: 4,
  NotFound: 5,
  AlreadyExists: 6,
  PermissionDenied: 7,
  ResourceExhausted: 8,
  FailedPrecondition: 9,
  Aborted: 10,
  OutOfRange: 11,
  Unimplemented: 12,
  Internal: 13,
  Unavailable: 14,
  Unauthenticated: 16,
} as const;

export interface ErrorDetailJson {
  readonly '@type': 'type.googleapis.com/platform.v1.ErrorDetail';
  readonly id: string;
  readonly message: string;
}

export interface BadRequestJson {
  readonly '@type': 'type.googleapis.com/google.rpc.BadRequest';
  readonly fieldViolations: readonly { readonly field: string; readonly description: string }[];
}

/** google.rpc.Status in proto3 JSON, as every JSON endpoint answers an error. */
export interface RpcStatusJson {
  readonly code: number;
  readonly message: string;
  readonly details: readonly (ErrorDetailJson | BadRequestJson)[];
}

export interface WireError {
  readonly httpStatus: number;
  readonly grpcCode: number;
  readonly body: RpcStatusJson;
  /** The error as mapped; for non-AppErrors an `internal` one whose `cause` is the original. */
  readonly appError: AppError;
  /** Headers the reply carries besides the body's (Retry-After of a temporary failure). */
  readonly headers: Readonly<Record<string, string>> | undefined;
}

const statusOfKind = {
  invalid_argument: { http: 400, grpc: GrpcCode.InvalidArgument },
  failed_precondition: { http: 400, grpc: GrpcCode.FailedPrecondition },
  out_of_range: { http: 400, grpc: GrpcCode.OutOfRange },
  unauthenticated: { http: 401, grpc: GrpcCode.Unauthenticated },
  permission_denied: { http: 403, grpc: GrpcCode.PermissionDenied },
  not_found: { http: 404, grpc: GrpcCode.NotFound },
  already_exists: { http: 409, grpc: GrpcCode.AlreadyExists },
  aborted: { http: 409, grpc: GrpcCode.Aborted },
  resource_exhausted: { http: 429, grpc: GrpcCode.ResourceExhausted },
  cancelled: { http: 499, grpc: GrpcCode.Canceled },
  internal: { http: 500, grpc: GrpcCode.Internal },
  unimplemented: { http: 501, grpc: GrpcCode.Unimplemented },
  unavailable: { http: 503, grpc: GrpcCode.Unavailable },
  deadline_exceeded: { http: 504, grpc: GrpcCode.DeadlineExceeded },
} as const satisfies Record<ErrorKind, { readonly http: number; readonly grpc: number }>;

const errorDetailType = 'type.googleapis.com/platform.v1.ErrorDetail';
const badRequestType = 'type.googleapis.com/google.rpc.BadRequest';

/** Maps any thrown value to HTTP status, gRPC code and rpcStatus JSON body. */
export function toWireError(error: unknown): WireError {
  const appError = asAppError(error);
  const status = statusOfKind[appError.kind];
  return {
    httpStatus: status.http,
    grpcCode: status.grpc,
    body: { code: status.grpc, message: wireMessage(appError), details: jsonDetails(appError) },
    appError,
    headers: appError.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(appError.retryAfterSeconds) },
  };
}

function asAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError('internal', 'internal.unexpected', 'internal error', { cause: error });
}

function wireMessage(error: AppError): string {
  return `${error.message} (${error.code})`;
}

function jsonDetails(error: AppError): (ErrorDetailJson | BadRequestJson)[] {
  const detail: ErrorDetailJson = { '@type': errorDetailType, id: error.code, message: error.message };
  if (error.violations.length === 0) return [detail];
  const fieldViolations = error.violations.map((v) => ({ field: v.field, description: v.description }));
  return [detail, { '@type': badRequestType, fieldViolations }];
}
