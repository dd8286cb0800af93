/** PlatformSessions: every RPC definition of the service. */
import { createSessionRpc } from './create-session.js';
import { deleteSessionRpc } from './delete-session.js';
import { getSessionRpc } from './get-session.js';
import { patchSessionRpc } from './patch-session.js';
import { searchSessionsRpc } from './search-sessions.js';

export const sessionRpcs = [createSessionRpc, getSessionRpc, patchSessionRpc, deleteSessionRpc, searchSessionsRpc] as const;
