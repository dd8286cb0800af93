/** User read shapes, lookups with the permission check in the user's org, and enum conversions. */
import { create } from '@bufbuild/protobuf';
import {
  type AccessTokenType as DomainAccessTokenType,
  type ActorAddress,
  type AggregateRecord,
  detailsOf,
  type Gender as DomainGender,
  notFound,
  type Org,
  orgKind,
  type User,
  type UserLifecycle,
  userKind,
} from '../../../../actors/index.js';
import {
  AccessTokenType,
  Gender,
  GetUserSchema,
  TotpState,
  UserState,
  UserType,
  type GetUser,
} from '../../../gen/platform/resources/user/v3alpha/user_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { toDetails, toTimestamp } from '../../shared/convert.js';
import { readOwned } from '../../shared/owned.js';
import { loginNamesOf } from '../../../query/user-auth.js';

/**
 * Reads a user and checks `permission` in the user's organization (instance-wide roles count).
 * 404 when absent, in a removed organization, or outside the org named by `ctx`.
 */
export async function requireUserFor(call: CallContext, id: string, permission: string): Promise<AggregateRecord<User>> {
  const record = await readOwned(call, userKind, id);
  if (record === undefined || (call.scope.type === 'org' && call.scope.orgId !== record.state.orgId)) {
    throw notFound('user.not_found', 'user not found');
  }
  await call.require(permission, record.state.orgId);
  return record;
}

/** The actor that owns a user: its organization's. */
export function userActor(call: CallContext, user: AggregateRecord<User>): ActorAddress {
  return { kind: 'org', instanceId: call.instance.id, orgId: user.state.orgId };
}

export async function readOrgOf(call: CallContext, orgId: string): Promise<Org | undefined> {
  return (await call.services.actors.readRecord(call.instance.id, orgKind, orgId))?.state;
}

export function toGetUser(record: AggregateRecord<User>, org: Org | undefined): GetUser {
  const user = record.state;
  const names = loginNamesOf(user.username, org);
  return create(GetUserSchema, {
    details: toDetails(detailsOf(record)),
    username: user.username,
    state: toWireState(user.state),
    loginNames: [...names.loginNames],
    preferredLoginName: names.preferredLoginName,
    type:
      user.type === 'human'
        ? {
            case: 'human',
            value: {
              profile: {
                givenName: user.profile.givenName,
                familyName: user.profile.familyName,
                displayName: user.profile.displayName,
                nickName: user.profile.nickname,
                preferredLanguage: user.profile.preferredLanguage,
                gender: toWireGender(user.profile.gender),
              },
              email: { address: user.email.address, isVerified: user.email.verified },
              phone: { number: user.phone.number, isVerified: user.phone.verified },
              passwordSet: user.passwordHash !== '',
              passwordChangeRequired: user.passwordChangeRequired,
              ...(user.passwordChangedAt > 0 ? { passwordChanged: toTimestamp(user.passwordChangedAt) } : {}),
              failedPasswordAttempts: user.failedPasswordAttempts,
              totpState: user.totp === undefined ? TotpState.NONE : user.totp.verified ? TotpState.VERIFIED : TotpState.UNVERIFIED,
              failedOtpAttempts: user.failedOtpAttempts ?? 0,
              recoveryCodesLeft: user.recoveryCodes?.length ?? 0,
              otpEmail: user.otpEmail !== undefined,
              otpSms: user.otpSms !== undefined,
            },
          }
        : {
            case: 'machine',
            value: {
              name: user.name,
              description: user.description,
              accessTokenType: toWireAccessTokenType(user.accessTokenType),
              hasSecret: user.secretDigest !== '',
            },
          },
    ...(record.meta.createdAt > 0 ? { creationDate: toTimestamp(record.meta.createdAt) } : {}),
  });
}

const states: Record<UserLifecycle, UserState> = { active: UserState.ACTIVE, inactive: UserState.INACTIVE, locked: UserState.LOCKED };

export function toWireState(state: UserLifecycle): UserState {
  return states[state];
}

export function toWireType(type: User['type']): UserType {
  return type === 'human' ? UserType.HUMAN : UserType.MACHINE;
}

const genders: Record<DomainGender, Gender> = { unspecified: Gender.UNSPECIFIED, female: Gender.FEMALE, male: Gender.MALE, diverse: Gender.DIVERSE };

export function toWireGender(gender: DomainGender): Gender {
  return genders[gender];
}

export function parseGender(gender: Gender): DomainGender {
  return (Object.keys(genders) as DomainGender[]).find((g) => genders[g] === gender) ?? 'unspecified';
}

export function toWireAccessTokenType(type: DomainAccessTokenType): AccessTokenType {
  return type === 'jwt' ? AccessTokenType.JWT : AccessTokenType.BEARER;
}

export function parseAccessTokenType(type: AccessTokenType): DomainAccessTokenType {
  return type === AccessTokenType.JWT ? 'jwt' : 'bearer';
}

/** The default expiry of tokens and keys created without one (as the reference: the end of 9999). */
export const NEVER_EXPIRES = Date.UTC(9999, 11, 31, 23, 59, 59);
