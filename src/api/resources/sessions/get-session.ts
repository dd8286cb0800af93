/** GetSession: GET /resources/v3alpha/sessions/{id} (`session.read` in the session's organization); never the token. */
import { z } from 'zod';
import { PlatformSessions } from '../../../gen/platform/resources/session/v3alpha/session_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireSessionFor, toGetSession } from './shared.js';

const input = z.object({ id: resourceId });

export const getSessionRpc = defineRpc({
  method: PlatformSessions.method.getSession,
  permission: 'authenticated', // session.read, checked in the session's organization
  async handle(request, call) {
    const { id } = parseWith(input, request);
    return { session: await toGetSession(call, await requireSessionFor(call, id, 'session.read')) };
  },
});
