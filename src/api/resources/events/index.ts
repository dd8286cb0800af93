/** PlatformEvents: every RPC definition of the service (the audit read). */
import { searchEventsRpc } from './search-events.js';

export const eventRpcs = [searchEventsRpc] as const;
