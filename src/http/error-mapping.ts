/**
 * The one place errors become wire errors (style guide §6): error kind → HTTP status, gRPC
 * code and rpcStatus body (reference facts §2.3), for JSON and for Connect / gRPC alike.
 * Anything that is not an AppError is `internal` with a fixed message: nothing of the
 * original error (message, stack) reaches the client; it stays in `appError.cause` for logs.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { AppError, type ErrorKind } from '../../actors/index.js';
import { BadRequestSchema } from '../gen/google/rpc/error_details_pb.js';
import { ErrorDetailSchema } from '../gen/platform/v1/error_pb.js';

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
  invalid_argument: { http: 400, grpc: Code.InvalidArgument },
  failed_precondition: { http: 400, grpc: Code.FailedPrecondition },
  out_of_range: { http: 400, grpc: Code.OutOfRange },
  unauthenticated: { http: 401, grpc: Code.Unauthenticated },
  permission_denied: { http: 403, grpc: Code.PermissionDenied },
  not_found: { http: 404, grpc: Code.NotFound },
  already_exists: { http: 409, grpc: Code.AlreadyExists },
  aborted: { http: 409, grpc: Code.Aborted },
  resource_exhausted: { http: 429, grpc: Code.ResourceExhausted },
  cancelled: { http: 499, grpc: Code.Canceled },
  internal: { http: 500, grpc: Code.Internal },
  unimplemented: { http: 501, grpc: Code.Unimplemented },
  unavailable: { http: 503, grpc: Code.Unavailable },
  deadline_exceeded: { http: 504, grpc: Code.DeadlineExceeded },
} as const satisfies Record<ErrorKind, { readonly http: number; readonly grpc: Code }>;

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

/** The same mapping for Connect, gRPC-web and gRPC (details go to grpc-status-details-bin). */
export function toConnectError(error: unknown): ConnectError {
  const appError = asAppError(error);
  const details = [{ desc: ErrorDetailSchema, value: { id: appError.code, message: appError.message } }];
  const violations = appError.violations.map((v) => ({ field: v.field, description: v.description }));
  const withViolations =
    violations.length === 0
      ? details
      : [...details, { desc: BadRequestSchema, value: { fieldViolations: violations } }];
  const metadata = appError.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(appError.retryAfterSeconds) };
  return new ConnectError(wireMessage(appError), statusOfKind[appError.kind].grpc, metadata, withViolations, appError);
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
