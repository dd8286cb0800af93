/**
 * Picks the HTTP adapter at startup: uWebSockets.js when asked for and its native binary loads,
 * otherwise node:http with a warning. uWS is imported lazily so a missing or incompatible binary
 * never breaks module loading.
 */
import type { HttpAdapter } from './types.js';
import { nodeAdapter } from './node-adapter.js';

export async function selectHttpAdapter(
  preferred: 'uws' | 'node',
  warn: (msg: string, err?: unknown) => void,
): Promise<HttpAdapter> {
  if (preferred === 'node') return nodeAdapter;
  try {
    const { isNativeUws, uwsAdapter } = await import('./uws-adapter.js');
    if (isNativeUws()) return uwsAdapter;
    warn('uWebSockets.js native binary is not available on this platform; using node:http');
  } catch (err) {
    warn('uWebSockets.js failed to load; using node:http', err);
  }
  return nodeAdapter;
}
