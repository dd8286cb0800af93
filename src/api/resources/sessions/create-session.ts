/**
 * CreateSession: POST /resources/v3alpha/sessions → 201 with the session token (only here) and
 * the verified factors. `session.write` in the user's organization, checked before any password
 * is verified (so nobody without it can probe passwords or lock users).
 */
import { z } from 'zod';
import { notFound } from '../../../../actors/index.js';
import { PlatformSessions, type CreateSessionRequest } from '../../../gen/platform/resources/session/v3alpha/session_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { createLoginSession, resolveSessionUser, type SessionUserRef } from '../../../query/sessions.js';
import { parseWith } from '../../shared/validate.js';
import { callUserAgent, lifetime, metadata, password, pat, toFactors } from './shared.js';

const userCheck = z
  .object(
    { loginName: z.string().max(200, 'must be at most 200 characters').optional(), userId: z.string().max(200, 'must be at most 200 characters').optional() },
    'required',
  )
  .refine((u) => (u.loginName !== undefined && u.loginName !== '') !== (u.userId !== undefined && u.userId !== ''), 'set exactly one of loginName or userId');

const input = z.object({
  session: z.object(
    {
      checks: z.object({ user: userCheck, password: password.optional(), token: pat.optional() }, 'required'),
      lifetime: lifetime.optional(),
      metadata,
      userAgent: z
        .object({ description: z.string().max(500, 'must be at most 500 characters'), ip: z.string().max(100, 'must be at most 100 characters') })
        .optional(),
    },
    'required',
  ),
});

/** The request as plain data: the user oneof flattened to `loginName` / `userId` (their JSON names). */
function plain(request: CreateSessionRequest): unknown {
  const s = request.session;
  if (s === undefined) return {};
  const search = s.checks?.user?.search;
  return {
    session: {
      ...s,
      checks: s.checks && {
        ...s.checks,
        user: s.checks.user && {
          loginName: search?.case === 'loginName' ? search.value : undefined,
          userId: search?.case === 'userId' ? search.value : undefined,
        },
      },
    },
  };
}

export const createSessionRpc = defineRpc({
  method: PlatformSessions.method.createSession,
  permission: 'authenticated', // session.write, checked in the user's organization
  created: true,
  async handle(request, call) {
    const { session } = parseWith(input, plain(request));
    const { loginName, userId } = session.checks.user;
    const onlyOrg = call.scope.type === 'org' ? call.scope.orgId : undefined;
    const ref: SessionUserRef = userId ? { userId } : { loginName: loginName ?? '', ...(onlyOrg === undefined ? {} : { orgId: onlyOrg }) };
    const user = await resolveSessionUser(call.services.actors, call.instance.id, ref);
    if (onlyOrg !== undefined && user.state.orgId !== onlyOrg) throw notFound('user.not_found', 'user not found');
    await call.require('session.write', user.state.orgId);
    const created = await createLoginSession(
      call.services.actors,
      call.instance.id,
      user,
      { ...(session.checks.password ? { password: session.checks.password.password } : {}), ...(session.checks.token ? { pat: session.checks.token.pat } : {}) },
      {
        creator: call.caller.userId,
        metadata: session.metadata,
        ...(session.lifetime === undefined ? {} : { lifetimeMs: session.lifetime }),
        userAgent: session.userAgent ? { userAgent: session.userAgent.description, ip: session.userAgent.ip } : callUserAgent(call),
      },
    );
    return {
      details: toDetails(created.details),
      sessionToken: created.sessionToken,
      ...(created.session === undefined ? {} : { factors: await toFactors(call, created.session.state) }),
    };
  },
});
