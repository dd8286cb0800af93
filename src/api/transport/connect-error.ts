/**
 * The wire error of src/http/error-mapping.ts as a ConnectError, for Connect, gRPC-web and gRPC:
 * the same code and message, the details as messages (they go to grpc-status-details-bin) and
 * Retry-After as metadata. Loaded with the RPC transports, not by the JSON and OAuth paths (#13).
 */
import { ConnectError, type Code } from '@connectrpc/connect';
import { toWireError } from '../../http/error-mapping.js';
import { BadRequestSchema } from '../../gen/google/rpc/error_details_pb.js';
import { ErrorDetailSchema } from '../../gen/platform/v1/error_pb.js';

export function toConnectError(error: unknown): ConnectError {
  const { appError, grpcCode, body, headers } = toWireError(error);
  const details = [{ desc: ErrorDetailSchema, value: { id: appError.code, message: appError.message } }];
  const violations = appError.violations.map((v) => ({ field: v.field, description: v.description }));
  const withViolations =
    violations.length === 0
      ? details
      : [...details, { desc: BadRequestSchema, value: { fieldViolations: violations } }];
  // grpcCode is one of Connect's Code numbers (error-mapping.ts GrpcCode).
  return new ConnectError(body.message, grpcCode as Code, headers, withViolations, appError);
}
