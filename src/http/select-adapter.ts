/**
 * Picks the HTTP adapter at startup: uWebSockets.js when asked for and one of the candidate
 * builds loads on this platform (uws-loader.ts), otherwise node:http. The fallback is loud: the
 * caller logs a warning with every candidate's reason, `/readyz` names the adapter and the
 * metric `tessera_http_adapter` carries it. The uWS modules are imported lazily so a missing or
 * incompatible binary never breaks module loading.
 */
import type { HttpAdapter } from './types.js';
import { nodeAdapter } from './node-adapter.js';

export interface SelectedAdapter {
  readonly adapter: HttpAdapter;
  /** What the configuration asked for (TESSERA_HTTP). */
  readonly requested: 'uws' | 'node';
  /** The uWS package whose binary serves, when the adapter is uws. */
  readonly uwsPackage?: string;
  /** Why node:http serves although uws was asked for: one reason per candidate. */
  readonly fallbackReasons?: readonly string[];
}

export async function selectHttpAdapter(requested: 'uws' | 'node'): Promise<SelectedAdapter> {
  if (requested === 'node') return { adapter: nodeAdapter, requested };
  try {
    const [{ loadUws }, { createUwsAdapter }] = await Promise.all([import('./uws-loader.js'), import('./uws-adapter.js')]);
    const uws = loadUws();
    if (uws.loaded) return { adapter: createUwsAdapter(uws.native), requested, uwsPackage: uws.package };
    return { adapter: nodeAdapter, requested, fallbackReasons: uws.reasons };
  } catch (error) {
    return { adapter: nodeAdapter, requested, fallbackReasons: [`uWebSockets.js adapter failed to load: ${error instanceof Error ? error.message : String(error)}`] };
  }
}

/** The adapter for tests and benchmarks that need uWS itself: undefined (with the reasons) when none loads here. */
export async function loadUwsAdapter(): Promise<{ adapter: HttpAdapter; package: string } | { adapter: undefined; reasons: readonly string[] }> {
  const selected = await selectHttpAdapter('uws');
  return selected.uwsPackage === undefined ? { adapter: undefined, reasons: selected.fallbackReasons ?? [] } : { adapter: selected.adapter, package: selected.uwsPackage };
}
