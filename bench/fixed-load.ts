/**
 * A fixed number of requests sent by autocannon over keep-alive connections, for the studies that
 * count what a node does per request (bench/alloc-study.ts, bench/scavenge-phases.ts): a token
 * request when there is a body, else a GET of `path`.
 */
import { createRequire } from 'node:module';
import { TOKEN_PATH } from './oidc.js';
import { TESSERA_HOST_HEADER, type TesseraNode } from './tessera.js';

export interface FixedLoadResult {
  readonly requests: { readonly total?: number };
  readonly non2xx: number;
  readonly errors: number;
}

type Autocannon = (options: Record<string, unknown>, done: (error: Error | null, result: FixedLoadResult) => void) => unknown;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface FixedLoad {
  readonly authorization: string;
  /** A urlencoded token request; undefined sends GETs. */
  readonly body: string | undefined;
  readonly amount: number;
  readonly connections: number;
  /** Defaults to the token endpoint. */
  readonly path?: string;
}

export function sendFixed(node: TesseraNode, load: FixedLoad): Promise<FixedLoadResult> {
  const { authorization, body } = load;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${node.origin}${load.path ?? TOKEN_PATH}`,
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? { host: TESSERA_HOST_HEADER, authorization } : { host: TESSERA_HOST_HEADER, authorization, 'content-type': 'application/x-www-form-urlencoded' },
        ...(body === undefined ? {} : { body }),
        connections: load.connections,
        amount: load.amount,
      },
      (error, result) => (error === null ? resolve(result) : reject(error)),
    );
  });
}
