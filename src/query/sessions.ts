/**
 * Session operations for every module that authenticates users: the PlatformSessions API, the
 * login UI and OIDC. Passwords are verified here (argon2 runs off the actor, failures count
 * towards the instance's lockout); the session commands record the checks. The session token
 * is generated here, returned once, and only its SHA-256 digest is stored (claimed under
 * `session.token`, so `findSessionByToken` is one lookup).
 */
import { timingSafeEqual } from 'node:crypto';
import {
  type ActorSystem,
  type AggregateRecord,
  checkSession,
  createSession,
  DEFAULT_SESSION_LIFETIME_MS,
  failedPrecondition,
  isSessionLive,
  knownRecord,
  notFound,
  orgKind,
  type ResourceDetails,
  type Session,
  SESSION_TOKEN_SCOPE,
  sessionKind,
  type SessionUserAgent,
  type SessionWritten,
  terminateSession as terminateSessionCommand,
  type User,
  userKind,
} from '../../actors/index.js';
import { randomSecret } from '../crypto/random.js';
import { tokenDigest } from '../crypto/token-digest.js';
import { findUserByLoginName, verifyUserPassword } from './user-auth.js';

/** Who the session is for: a login name (resolved like the login UI does) or a user id. */
export type SessionUserRef = { readonly loginName: string; readonly orgId?: string } | { readonly userId: string };

export interface SessionFactorInput {
  /** Human users: the password, verified and counted towards lockout. */
  readonly password?: string;
  /** Machine users: one of the user's personal access tokens. */
  readonly pat?: string;
  /** Human users: the login UI completed an external login through this IDP (linked to the user). */
  readonly idpId?: string;
  /**
   * Human users, login UI: the password was already verified (and recorded) against this hash
   * in an earlier step of the same login; the session refuses it if the hash changed since.
   */
  readonly verifiedPasswordHash?: string;
  /** Human users, login UI: the TOTP code was accepted and recorded on the user. */
  readonly totpChecked?: boolean;
  /** Human users, login UI: a login code sent by email / SMS was accepted and recorded on the user. */
  readonly otpMessageChecked?: 'email' | 'sms';
  /** Human users, login UI: an assertion of this passkey was verified and recorded on the user. */
  readonly passkey?: { readonly id: string; readonly userVerified: boolean; readonly multiFactor?: boolean };
}

export interface SessionWriteOptions {
  /** Milliseconds from now; create defaults to 24 h. */
  readonly lifetimeMs?: number;
  /** Entries to set; on a patch an empty value removes the key. */
  readonly metadata?: Readonly<Record<string, string>>;
  /** Whom the events name as creator; default the session's user. */
  readonly creator?: string;
}

export interface CreatedLoginSession extends SessionWritten {
  readonly sessionId: string;
  /** Hand out once (cookie / bearer); never stored. */
  readonly sessionToken: string;
  readonly user: AggregateRecord<User>;
}

/** Resolves a user reference; 404 `user.not_found` (also for users of removed organizations). */
export async function resolveSessionUser(actors: ActorSystem, instanceId: string, ref: SessionUserRef): Promise<AggregateRecord<User>> {
  let user: AggregateRecord<User> | undefined;
  if ('userId' in ref) {
    user = await actors.readRecord(instanceId, userKind, ref.userId);
    if (user !== undefined && (await actors.readRecord(instanceId, orgKind, user.state.orgId)) === undefined) user = undefined;
  } else {
    user = await findUserByLoginName(actors, instanceId, ref.loginName, ref.orgId === undefined ? {} : { orgId: ref.orgId });
  }
  if (user === undefined) throw notFound('user.not_found', 'user not found');
  return user;
}

/**
 * Creates a session: checks the user, then the password (humans) or PAT (machines) if given.
 * A wrong password is recorded on the user (lockout) and fails with 400 `session.password_invalid`;
 * a locked user fails with `user.locked`, an inactive one with `user.inactive`.
 */
export async function createLoginSession(
  actors: ActorSystem,
  instanceId: string,
  userRef: SessionUserRef | AggregateRecord<User>,
  factors: SessionFactorInput,
  options: SessionWriteOptions & { readonly userAgent?: SessionUserAgent } = {},
): Promise<CreatedLoginSession> {
  const user = 'state' in userRef ? userRef : await resolveSessionUser(actors, instanceId, userRef);
  const creator = options.creator ?? user.id;
  const passwordHash = factors.password === undefined ? factors.verifiedPasswordHash : await verifiedPasswordHash(actors, instanceId, user, factors.password, creator);
  const sessionId = actors.ids.next();
  const sessionToken = randomSecret();
  const written = await actors.ask(
    { kind: 'org', instanceId, orgId: user.state.orgId },
    createSession,
    {
      sessionId,
      orgId: user.state.orgId,
      userId: user.id,
      tokenDigest: tokenDigest(sessionToken),
      lifetimeMs: options.lifetimeMs ?? DEFAULT_SESSION_LIFETIME_MS,
      metadata: options.metadata ?? {},
      userAgent: options.userAgent ?? { userAgent: '', ip: '' },
      ...(passwordHash === undefined ? {} : { passwordHash }),
      ...(factors.pat === undefined ? {} : { patDigest: tokenDigest(factors.pat) }),
      ...(factors.idpId === undefined ? {} : { idpId: factors.idpId }),
      ...(factors.totpChecked === true ? { totpChecked: true } : {}),
      ...(factors.otpMessageChecked === undefined ? {} : { otpMessageChecked: factors.otpMessageChecked }),
      ...(factors.passkey === undefined ? {} : { passkey: factors.passkey }),
    },
    // The user as resolved above, unless the password check just wrote it (the actor holds that version).
    { creator, minted: [sessionId], ...(factors.password === undefined ? { known: [knownRecord(userKind, user)] } : {}) },
  );
  return { ...written, sessionId, sessionToken, user };
}

/** Adds checks (and lifetime / metadata changes) to a live session; 404 `session.not_found` when gone. */
export async function addSessionChecks(
  actors: ActorSystem,
  instanceId: string,
  sessionId: string,
  factors: SessionFactorInput,
  options: SessionWriteOptions = {},
): Promise<SessionWritten> {
  const session = await requireLiveSession(actors, instanceId, sessionId);
  const user = await resolveSessionUser(actors, instanceId, { userId: session.state.userId });
  const creator = options.creator ?? user.id;
  const passwordHash = factors.password === undefined ? undefined : await verifiedPasswordHash(actors, instanceId, user, factors.password, creator);
  return actors.ask(
    { kind: 'org', instanceId, orgId: session.state.orgId },
    checkSession,
    {
      sessionId,
      orgId: session.state.orgId,
      userId: user.id,
      ...(options.lifetimeMs === undefined ? {} : { lifetimeMs: options.lifetimeMs }),
      ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
      ...(passwordHash === undefined ? {} : { passwordHash }),
      ...(factors.pat === undefined ? {} : { patDigest: tokenDigest(factors.pat) }),
    },
    { creator, known: factors.password === undefined ? [knownRecord(sessionKind, session), knownRecord(userKind, user)] : [knownRecord(sessionKind, session)] },
  );
}

/** The login UI's second step: the password for a session that checked the user. */
export async function addPasswordCheck(
  actors: ActorSystem,
  instanceId: string,
  sessionId: string,
  password: string,
  options: SessionWriteOptions = {},
): Promise<SessionWritten> {
  return addSessionChecks(actors, instanceId, sessionId, { password }, options);
}

/**
 * The session a token (cookie / bearer) belongs to, if it is live: not expired or terminated,
 * its organization and user still exist and the user is active.
 */
export async function findSessionByToken(actors: ActorSystem, instanceId: string, token: string): Promise<AggregateRecord<Session> | undefined> {
  if (token === '' || token.length > 500) return undefined;
  const digest = tokenDigest(token);
  const sessionId = await actors.findUnique(instanceId, SESSION_TOKEN_SCOPE, digest);
  if (sessionId === undefined) return undefined;
  const session = await readLiveSession(actors, instanceId, sessionId);
  if (session === undefined || !sameDigest(session.state.tokenDigest, digest)) return undefined;
  const user = await actors.readRecord(instanceId, userKind, session.state.userId);
  return user?.state.state === 'active' ? session : undefined;
}

/** The live sessions of a user agent whose cookie holds several session tokens (unknown tokens are skipped). */
export async function listSessionsForUserAgent(
  actors: ActorSystem,
  instanceId: string,
  tokens: readonly string[],
): Promise<AggregateRecord<Session>[]> {
  const found = new Map<string, AggregateRecord<Session>>();
  for (const token of new Set(tokens)) {
    const session = await findSessionByToken(actors, instanceId, token);
    if (session !== undefined) found.set(session.id, session);
  }
  return [...found.values()];
}

/** Terminates a live session (removes it, releases its token); 404 `session.not_found` when gone. */
export async function terminateSession(
  actors: ActorSystem,
  instanceId: string,
  sessionId: string,
  options: { readonly creator?: string } = {},
): Promise<ResourceDetails> {
  const session = await requireLiveSession(actors, instanceId, sessionId);
  const orgId = session.state.orgId;
  return actors.ask({ kind: 'org', instanceId, orgId }, terminateSessionCommand, { sessionId, orgId }, { creator: options.creator ?? session.state.userId });
}

/** A session that exists, has not expired, and whose organization and user still exist. */
export async function readLiveSession(actors: ActorSystem, instanceId: string, sessionId: string): Promise<AggregateRecord<Session> | undefined> {
  const session = await readSession(actors, instanceId, sessionId);
  return isSessionLive(session, actors.clock.now()) ? session : undefined;
}

/** Like readLiveSession, expired sessions included (searches list them on request). */
export async function readSession(actors: ActorSystem, instanceId: string, sessionId: string): Promise<AggregateRecord<Session> | undefined> {
  const session = await actors.readRecord(instanceId, sessionKind, sessionId);
  if (session === undefined || !(await isSessionUsable(actors, instanceId, session))) return undefined;
  return session;
}

/** False when the session's organization or user is gone (read-time tombstones). */
export async function isSessionUsable(actors: ActorSystem, instanceId: string, session: AggregateRecord<Session>): Promise<boolean> {
  if ((await actors.readRecord(instanceId, orgKind, session.state.orgId)) === undefined) return false;
  const user = await actors.readRecord(instanceId, userKind, session.state.userId);
  return user !== undefined && user.state.orgId === session.state.orgId;
}

/** True when the token is the session's (timing-safe). */
export function isSessionToken(session: Session, token: string): boolean {
  return sameDigest(session.tokenDigest, tokenDigest(token));
}

async function requireLiveSession(actors: ActorSystem, instanceId: string, sessionId: string): Promise<AggregateRecord<Session>> {
  const session = await readLiveSession(actors, instanceId, sessionId);
  if (session === undefined) throw notFound('session.not_found', 'session not found');
  return session;
}

/** Verifies the password (recording the outcome); returns the hash it was verified against or throws. */
async function verifiedPasswordHash(actors: ActorSystem, instanceId: string, user: AggregateRecord<User>, password: string, creator: string): Promise<string> {
  if (user.state.type !== 'human') throw failedPrecondition('user.not_human', 'a password check is only available for human users');
  const result = await verifyUserPassword(actors, instanceId, user.id, password, { creator });
  switch (result.outcome) {
    case 'valid':
      return result.passwordHash ?? user.state.passwordHash;
    case 'locked':
      throw failedPrecondition('user.locked', 'the user is locked');
    case 'inactive':
      throw failedPrecondition('user.inactive', 'the user is inactive');
    case 'not_found':
      throw notFound('user.not_found', 'user not found');
    case 'not_human':
      throw failedPrecondition('user.not_human', 'a password check is only available for human users');
    case 'no_password':
      throw failedPrecondition('user.password_not_set', 'the user has no password');
    case 'unsupported_hash':
      throw failedPrecondition('user.password_unsupported', 'the stored password hash cannot be verified');
    default:
      throw failedPrecondition('session.password_invalid', 'the password is invalid', {
        detail: `failed attempts: ${result.failedAttempts}${result.lockedNow ? ', user locked' : ''}`,
      });
  }
}

function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
