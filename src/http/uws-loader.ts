/**
 * Finds a uWebSockets.js native binary that loads on this platform. Each candidate package
 * ships one binary per platform, architecture and Node ABI; the binary is loaded directly, so a
 * package's silent pure-JS fallback (the trufflesuite build's, on Node versions it has no binary
 * for) is never used, and every candidate that does not fit leaves a reason naming why (not
 * installed, no binary for this Node ABI, or the loader's error, e.g. a missing glibc version).
 * docs/operations/running.md has the Node × glibc matrix.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import type uWS from '@trufflesuite/uws-js-unofficial';

/** The part of the uWS module the adapter uses (the same in every candidate). */
export type UwsNative = Pick<typeof uWS, 'App' | 'SSLApp' | 'us_listen_socket_close' | 'us_socket_local_port'>;

export interface UwsCandidate {
  /** npm package name. */
  readonly package: string;
  /** Folder of the `uws_<platform>_<arch>_<abi>.node` binaries, relative to the package's main file (or absolute). */
  readonly binaries: string;
}

/**
 * Tried in order. The trufflesuite build is the pinned dependency (Node ≤ 20). Upstream
 * uWebSockets.js is not on npm; an operator may install a release from its GitHub repository
 * (`npm install uNetworking/uWebSockets.js#v20.57.0`, package name `uWebSockets.js`) to get
 * binaries for Node 22/24 on glibc ≥ 2.38.
 */
export const UWS_CANDIDATES: readonly UwsCandidate[] = [
  { package: '@trufflesuite/uws-js-unofficial', binaries: '../binaries' },
  { package: 'uWebSockets.js', binaries: '.' },
];

export type UwsLoadResult =
  | { readonly loaded: true; readonly package: string; readonly native: UwsNative }
  | { readonly loaded: false; readonly reasons: readonly string[] };

const require = createRequire(import.meta.url);

export function loadUws(candidates: readonly UwsCandidate[] = UWS_CANDIDATES): UwsLoadResult {
  const reasons: string[] = [];
  for (const candidate of candidates) {
    const outcome = tryCandidate(candidate);
    if (typeof outcome === 'string') reasons.push(`${candidate.package}: ${outcome}`);
    else return { loaded: true, package: candidate.package, native: outcome };
  }
  return { loaded: false, reasons };
}

/** The native module, or why it is unusable. */
function tryCandidate(candidate: UwsCandidate): UwsNative | string {
  let main: string;
  try {
    main = require.resolve(candidate.package);
  } catch {
    return 'not installed';
  }
  const file = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  const path = resolve(dirname(main), candidate.binaries, file);
  if (!existsSync(path)) return `no binary for ${process.platform}-${process.arch} Node ${process.versions.node} (ABI ${process.versions.modules})`;
  let native: Partial<UwsNative>;
  try {
    native = require(path) as Partial<UwsNative>;
  } catch (error) {
    return `binary does not load: ${firstLine(error)}`;
  }
  if (typeof native.App !== 'function' || typeof native.us_listen_socket_close !== 'function') return 'binary is not a uWebSockets.js build';
  return native as UwsNative;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n', 1)[0] ?? message;
}
