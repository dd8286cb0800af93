// Unit test of src/http/error-mapping.ts and src/api/transport/connect-error.ts; kept beside the transport tests that use them.
import { Code, ConnectError } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { AppError, OAuthError, ProgrammerError, validationFailed, type ErrorKind } from '../../../actors/index.js';
import { GrpcCode, toWireError } from '../../../src/http/error-mapping.js';
import { toConnectError } from '../../../src/api/transport/connect-error.js';
import { BadRequestSchema } from '../../../src/gen/google/rpc/error_details_pb.js';
import { ErrorDetailSchema } from '../../../src/gen/platform/v1/error_pb.js';

describe('toWireError', () => {
  it.each<[ErrorKind, number, number]>([
    ['invalid_argument', 400, 3],
    ['failed_precondition', 400, 9],
    ['out_of_range', 400, 11],
    ['unauthenticated', 401, 16],
    ['permission_denied', 403, 7],
    ['not_found', 404, 5],
    ['already_exists', 409, 6],
    ['aborted', 409, 10],
    ['resource_exhausted', 429, 8],
    ['cancelled', 499, 1],
    ['internal', 500, 13],
    ['unimplemented', 501, 12],
    ['unavailable', 503, 14],
    ['deadline_exceeded', 504, 4],
  ])('maps %s to HTTP %i and gRPC %i', (kind, httpStatus, grpcCode) => {
    const error = new AppError(kind, 'internal.unexpected', 'Thing failed');
    expect(toWireError(error)).toEqual({
      httpStatus,
      grpcCode,
      appError: error,
      headers: undefined,
      body: {
        code: grpcCode,
        message: 'Thing failed (internal.unexpected)',
        details: [{ '@type': 'type.googleapis.com/platform.v1.ErrorDetail', id: 'internal.unexpected', message: 'Thing failed' }],
      },
    });
    expect(toConnectError(error).code).toBe(grpcCode);
  });

  it('adds a google.rpc.BadRequest detail for violations', () => {
    const error = validationFailed([
      { field: 'organization.name', description: 'must not be empty' },
      { field: 'query.limit', description: 'must be at most 1000' },
    ]);
    expect(toWireError(error).body.details).toEqual([
      { '@type': 'type.googleapis.com/platform.v1.ErrorDetail', id: 'request.invalid', message: error.message },
      {
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: [
          { field: 'organization.name', description: 'must not be empty' },
          { field: 'query.limit', description: 'must be at most 1000' },
        ],
      },
    ]);
  });

  it('sends Retry-After for an error that says when to try again, on JSON and Connect alike', () => {
    const error = new AppError('unavailable', 'store.unavailable', 'the database is unavailable', { retryAfterSeconds: 2 });
    expect(toWireError(error)).toMatchObject({ httpStatus: 503, headers: { 'retry-after': '2' } });
    expect(toConnectError(error).metadata.get('retry-after')).toBe('2');
    expect(toConnectError(new AppError('unavailable', 'store.unavailable', 'z')).metadata.get('retry-after')).toBeNull();
  });

  it('maps OAuthError by its kind', () => {
    expect(toWireError(new OAuthError('invalid_token', 'token expired'))).toMatchObject({ httpStatus: 401, grpcCode: 16 });
  });

  it.each([
    ['an Error', new Error('secret connection string')],
    ['a ProgrammerError', new ProgrammerError('secret misuse')],
    ['a string', 'secret string'],
    ['undefined', undefined],
  ])('turns %s into internal without leaking it', (_, thrown) => {
    const wire = toWireError(thrown);
    expect(wire).toMatchObject({ httpStatus: 500, grpcCode: 13, appError: { kind: 'internal', code: 'internal.unexpected' } });
    expect(wire.appError.cause).toBe(thrown);
    expect(JSON.stringify(wire.body)).not.toContain('secret');
    expect(wire.body.message).toBe('internal error (internal.unexpected)');
  });
});

describe('GrpcCode', () => {
  it('has the numbers of Connect\'s Code under the same names (the JSON path maps without loading Connect)', () => {
    expect(Object.keys(GrpcCode).length).toBe(14);
    for (const [name, number] of Object.entries(GrpcCode)) expect(Code[name as keyof typeof Code], name).toBe(number);
  });
});

describe('toConnectError', () => {
  it('carries code, message and both details as messages', () => {
    const error = toConnectError(validationFailed([{ field: 'id', description: 'must not be empty' }]));
    expect(error).toBeInstanceOf(ConnectError);
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toBe('invalid request: id: must not be empty (request.invalid)');
    expect(error.details).toMatchObject([
      { desc: ErrorDetailSchema, value: { id: 'request.invalid' } },
      { desc: BadRequestSchema, value: { fieldViolations: [{ field: 'id', description: 'must not be empty' }] } },
    ]);
  });

  it('hides a non-AppError and keeps it only as cause of the cause', () => {
    const thrown = new Error('secret');
    const error = toConnectError(thrown);
    expect(error).toMatchObject({ code: Code.Internal, rawMessage: 'internal error (internal.unexpected)' });
    expect(error.cause).toBeInstanceOf(AppError);
    expect((error.cause as AppError).cause).toBe(thrown);
  });
});
