/**
 * The uWebSockets.js adapter when a build loads on this platform (Node ≤ 20 with the pinned
 * package), and otherwise the reason suites that need it are skipped (e.g. on Node 24, where
 * the node itself falls back to node:http: docs/operations/running.md#http-adapter).
 */
import { loadUwsAdapter } from '../../src/http/select-adapter.js';
import type { HttpAdapter } from '../../src/http/types.js';

const loaded = await loadUwsAdapter();

export const uwsAdapter: HttpAdapter | undefined = loaded.adapter;
export const UWS_SKIP_REASON: string | undefined =
  loaded.adapter === undefined ? `no uWebSockets.js build loads on Node ${process.versions.node} here: ${loaded.reasons.join('; ')}` : undefined;
