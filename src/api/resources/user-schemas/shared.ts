/** User schema read shapes, enum conversions, and the JSON Schema check of documents (ajv). */
import { create, type JsonObject } from '@bufbuild/protobuf';
import { z } from 'zod';
import {
  type AggregateRecord,
  type Authenticator,
  detailsOf,
  invalidArgument,
  type JsonDocument,
  notFound,
  type UserSchema,
  userSchemaKind,
} from '../../../../actors/index.js';
import {
  AuthenticatorType,
  GetUserSchemaSchema,
  UserSchemaState,
  type GetUserSchema,
} from '../../../gen/platform/resources/userschema/v3alpha/user_schema_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { toDetails, toTimestamp } from '../../shared/convert.js';
import { checkJsonSchema } from './json-schema.js';

const authenticators: Record<Authenticator, AuthenticatorType> = {
  username: AuthenticatorType.USERNAME,
  password: AuthenticatorType.PASSWORD,
  webauthn: AuthenticatorType.WEBAUTHN,
  totp: AuthenticatorType.TOTP,
  otp_email: AuthenticatorType.OTP_EMAIL,
  otp_sms: AuthenticatorType.OTP_SMS,
  authentication_key: AuthenticatorType.AUTHENTICATION_KEY,
  identity_provider: AuthenticatorType.IDENTITY_PROVIDER,
};

export const schemaType = z.string().trim().min(1, 'required').max(200, 'must be at most 200 characters');

/** A list of authenticators: each a defined value (not UNSPECIFIED). */
export const authenticatorList = z.array(
  z.number().int().refine((v) => v !== AuthenticatorType.UNSPECIFIED && v in AuthenticatorType, 'must be a defined authenticator type'),
);

export function parseAuthenticators(types: readonly AuthenticatorType[]): Authenticator[] {
  const byWire = new Map(Object.entries(authenticators).map(([k, v]) => [v, k as Authenticator]));
  return types.map((t) => byWire.get(t)).filter((a): a is Authenticator => a !== undefined);
}

/** The document as a JSON Schema, or 400 `userschema.schema_invalid` naming `field`. */
export async function parseSchemaDocument(schema: JsonObject | undefined, field: string): Promise<JsonDocument> {
  if (schema === undefined) throw invalidArgument('request.invalid', 'invalid request', { violations: [{ field, description: 'required' }] });
  const check = await checkJsonSchema(schema);
  if (!check.valid) {
    throw invalidArgument('userschema.schema_invalid', 'the schema is not a valid JSON Schema', {
      violations: [{ field, description: 'must be a valid JSON Schema document' }],
      detail: check.problem,
    });
  }
  return schema;
}

export async function readUserSchema(call: CallContext, id: string): Promise<AggregateRecord<UserSchema>> {
  const record = await call.services.actors.readRecord(call.instance.id, userSchemaKind, id);
  if (record === undefined) throw notFound('userschema.not_found', 'user schema not found');
  return record;
}

export function toWireSchemaState(state: UserSchema['state']): UserSchemaState {
  return state === 'active' ? UserSchemaState.ACTIVE : UserSchemaState.INACTIVE;
}

export function toGetUserSchema(record: AggregateRecord<UserSchema>): GetUserSchema {
  return create(GetUserSchemaSchema, {
    details: toDetails(detailsOf(record)),
    config: {
      type: record.state.type,
      schema: record.state.schema as JsonObject,
      possibleAuthenticators: record.state.possibleAuthenticators.map((a) => authenticators[a]),
    },
    state: toWireSchemaState(record.state.state),
    revision: record.state.revision,
    ...(record.meta.createdAt > 0 ? { creationDate: toTimestamp(record.meta.createdAt) } : {}),
  });
}
