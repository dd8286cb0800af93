/**
 * PatchSession: PATCH /resources/v3alpha/sessions/{id}: adds checks (password, PAT), extends the
 * lifetime (from now), sets or removes metadata. Allowed with the session's own token in the
 * body, else with `session.write` in the session's organization. Nothing to change → nothing recorded.
 */
import { z } from 'zod';
import { PlatformSessions } from '../../../gen/platform/resources/session/v3alpha/session_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { addSessionChecks, isSessionToken } from '../../../query/sessions.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { lifetime, metadata, password, pat, requireSessionFor, toFactors } from './shared.js';

const input = z.object({
  id: resourceId,
  session: z
    .object({
      sessionToken: z.string().max(500, 'must be at most 500 characters').optional(),
      checks: z.object({ password: password.optional(), token: pat.optional() }).optional(),
      lifetime: lifetime.optional(),
      metadata,
    })
    .optional(),
});

export const patchSessionRpc = defineRpc({
  method: PlatformSessions.method.patchSession,
  permission: 'authenticated', // the session token, else session.write in the session's organization
  async handle(request, call) {
    const { id, session: patch } = parseWith(input, request);
    const current = await requireSessionFor(call, id, undefined);
    const token = patch?.sessionToken;
    if (token === undefined || token === '' || !isSessionToken(current.state, token)) await call.require('session.write', current.state.orgId);
    const checks = patch?.checks;
    const written = await addSessionChecks(
      call.services.actors,
      call.instance.id,
      id,
      { ...(checks?.password ? { password: checks.password.password } : {}), ...(checks?.token ? { pat: checks.token.pat } : {}) },
      {
        creator: call.caller.userId,
        ...(patch?.lifetime === undefined ? {} : { lifetimeMs: patch.lifetime }),
        ...(patch?.metadata === undefined ? {} : { metadata: patch.metadata }),
      },
    );
    return { details: toDetails(written.details), factors: await toFactors(call, (written.session ?? current).state) };
  },
});
