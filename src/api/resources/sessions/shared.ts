/** Session read shapes, the lookup with its permission check, and input schemas shared by the session operations. */
import { create } from '@bufbuild/protobuf';
import { durationMs, type Duration } from '@bufbuild/protobuf/wkt';
import { z } from 'zod';
import {
  type AggregateRecord,
  detailsOf,
  displayNameOf,
  MAX_SESSION_LIFETIME_MS,
  MAX_SESSION_METADATA,
  notFound,
  orgKind,
  type Session,
  sessionAmr,
  userKind,
} from '../../../../actors/index.js';
import {
  FactorsSchema,
  GetSessionSchema,
  SessionState,
  type Factors,
  type GetSession,
} from '../../../gen/platform/resources/session/v3alpha/session_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { toDetails, toTimestamp } from '../../shared/convert.js';
import { readSession } from '../../../query/sessions.js';
import { loginNamesOf } from '../../../query/user-auth.js';
import { lacksSecondFactor } from '../../../query/second-factors.js';

/**
 * The live session with this id, if the caller holds `permission` in its organization: 404 when
 * absent, expired, terminated, of a removed organization or user, or outside the ctx organization.
 */
export async function requireSessionFor(call: CallContext, id: string, permission: string | undefined): Promise<AggregateRecord<Session>> {
  const record = await readSession(call.services.actors, call.instance.id, id);
  if (
    record === undefined ||
    record.state.expiresAt <= call.services.clock.now() ||
    (call.scope.type === 'org' && call.scope.orgId !== record.state.orgId)
  ) {
    throw notFound('session.not_found', 'session not found');
  }
  if (permission !== undefined) await call.require(permission, record.state.orgId);
  return record;
}

export function toSessionState(session: Session, now: number): SessionState {
  return session.expiresAt > now ? SessionState.ACTIVE : SessionState.EXPIRED;
}

/** The factors of a session, with the user's current login name and display name. */
export async function toFactors(call: CallContext, session: Session): Promise<Factors> {
  const user = await call.services.actors.readRecord(call.instance.id, userKind, session.userId);
  const org = await call.services.actors.readRecord(call.instance.id, orgKind, session.orgId);
  return create(FactorsSchema, {
    user: {
      id: session.userId,
      organizationId: session.orgId,
      verifiedAt: toTimestamp(session.userCheckedAt),
      loginName: user === undefined ? '' : loginNamesOf(user.state.username, org?.state).preferredLoginName,
      displayName: user === undefined ? '' : displayNameOf(user.state),
    },
    ...(session.passwordCheckedAt > 0 ? { password: { verifiedAt: toTimestamp(session.passwordCheckedAt) } } : {}),
    ...(session.patCheckedAt > 0 ? { token: { verifiedAt: toTimestamp(session.patCheckedAt) } } : {}),
    ...((session.totpCheckedAt ?? 0) > 0 ? { totp: { verifiedAt: toTimestamp(session.totpCheckedAt!) } } : {}),
    ...((session.otpSmsCheckedAt ?? 0) > 0 ? { otpSms: { verifiedAt: toTimestamp(session.otpSmsCheckedAt!) } } : {}),
    ...((session.otpEmailCheckedAt ?? 0) > 0 ? { otpEmail: { verifiedAt: toTimestamp(session.otpEmailCheckedAt!) } } : {}),
    secondFactorMissing: user !== undefined && lacksSecondFactor(user.state, session),
    ...((session.webAuthNCheckedAt ?? 0) > 0 ? { webAuthN: { verifiedAt: toTimestamp(session.webAuthNCheckedAt!), userVerified: session.webAuthNUserVerified === true } } : {}),
  });
}

export async function toGetSession(call: CallContext, record: AggregateRecord<Session>): Promise<GetSession> {
  const session = record.state;
  return create(GetSessionSchema, {
    details: toDetails(detailsOf(record)),
    factors: await toFactors(call, session),
    metadata: Object.fromEntries(session.metadata.map((m) => [m.key, m.value])),
    userAgent: { description: session.userAgent.userAgent, ip: session.userAgent.ip },
    creationDate: toTimestamp(record.meta.createdAt),
    expirationDate: toTimestamp(session.expiresAt),
    state: toSessionState(session, call.services.clock.now()),
    amr: sessionAmr(session),
  });
}

/** A session lifetime: 1 s .. 366 days, in milliseconds. */
export const lifetime = z
  .custom<Duration>((value) => typeof value === 'object' && value !== null, 'must be a duration')
  .transform((value) => durationMs(value))
  .refine((ms) => ms >= 1000 && ms <= MAX_SESSION_LIFETIME_MS, 'must be between 1s and 366 days');

const metadataKey = z.string().min(1, 'keys must not be empty').max(200, 'keys must be at most 200 characters');

/** Session metadata: at most 50 entries, keys 1..200, values up to 2000 characters. */
export const metadata = z
  .record(metadataKey, z.string().max(2000, 'must be at most 2000 characters'))
  .refine((m) => Object.keys(m).length <= MAX_SESSION_METADATA, `at most ${MAX_SESSION_METADATA} entries`);

export const password = z.object({ password: z.string().min(1, 'required').max(200, 'must be at most 200 characters') });
export const pat = z.object({ pat: z.string().min(1, 'required').max(500, 'must be at most 500 characters') });

/** The user agent of a call: the User-Agent header and the remote address, bounded. */
export function callUserAgent(call: CallContext): { userAgent: string; ip: string } {
  return { userAgent: (call.meta.headers['user-agent'] ?? '').slice(0, 500), ip: call.meta.remoteAddress.slice(0, 100) };
}
