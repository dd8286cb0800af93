/**
 * `POST /admin/v1/export` and `POST /admin/v1/import` (seed 001, docs/api/export-import.md): the
 * routes only. What they do (admin-handlers.ts: the export document, the import phases, the
 * request parsing, bucket objects) loads on the first admin request and stays loaded (#13,
 * docs/architecture.md "Memory"): an idle node does not hold the code of a rare operation.
 */
import type { ActorSystem, Clock, Logger } from '../../../../actors/index.js';
import type { Route } from '../../../http/router.js';
import type { HttpReply, HttpRequest } from '../../../http/types.js';
import type { AccessTokenAuthenticator } from '../../../query/auth.js';
import type { TenantDirectory } from '../../../query/tenant.js';
import { lazyModule } from '../../../runtime/lazy-module.js';

export interface AdminRouteDeps {
  readonly dataDir: string;
  readonly actors: ActorSystem;
  readonly tenants: TenantDirectory;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly accessTokens?: AccessTokenAuthenticator;
  /** TESSERA_GCS_ENDPOINT: the object storage API instead of Google's. */
  readonly gcsEndpoint?: string;
  /** TESSERA_IMPORT_MAX_BODY_BYTES: also the largest object an import reads (default 128 MiB, as the config's). */
  readonly importMaxBytes?: number;
}

/** The route whose body limit is TESSERA_IMPORT_MAX_BODY_BYTES (node.ts hands it to the adapter). */
export const IMPORT_PATH = '/admin/v1/import';

const handlers = lazyModule(() => import('./admin-handlers.js'));

export function adminRoutes(deps: AdminRouteDeps): Route[] {
  return [
    { method: 'POST', pattern: '/admin/v1/export', handler: async (req: HttpRequest): Promise<HttpReply> => (await handlers()).handleExport(deps, req) },
    { method: 'POST', pattern: IMPORT_PATH, handler: async (req: HttpRequest): Promise<HttpReply> => (await handlers()).handleImport(deps, req) },
  ];
}
