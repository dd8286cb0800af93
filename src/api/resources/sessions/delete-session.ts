/** DeleteSession: DELETE /resources/v3alpha/sessions/{id} (`session.delete`); terminates the session. */
import { z } from 'zod';
import { PlatformSessions } from '../../../gen/platform/resources/session/v3alpha/session_service_pb.js';
import { defineRpc } from '../../invoker.js';
import { toDetails } from '../../shared/convert.js';
import { terminateSession } from '../../../query/sessions.js';
import { parseWith, resourceId } from '../../shared/validate.js';
import { requireSessionFor } from './shared.js';

const input = z.object({ id: resourceId });

export const deleteSessionRpc = defineRpc({
  method: PlatformSessions.method.deleteSession,
  permission: 'authenticated', // session.delete, checked in the session's organization
  async handle(request, call) {
    const { id } = parseWith(input, request);
    await requireSessionFor(call, id, 'session.delete');
    return { details: toDetails(await terminateSession(call.services.actors, call.instance.id, id, { creator: call.caller.userId })) };
  },
});
