/**
 * GET /openapi.json on every host (no tenant, no authentication: it describes the API, not
 * an instance). The document is built on the first request and then served from one string;
 * the services, the RPC definitions and the document's builder load with it (#13).
 */
import type { DescMethod, DescService } from '@bufbuild/protobuf';
import type { Route } from '../../http/router.js';
import type { HttpReply } from '../../http/types.js';
import type { AnyRpcDefinition } from '../invoker.js';
import type { MethodFacts } from './operations.js';

export const OPENAPI_PATH = '/openapi.json';

/** What the document describes: the services and their RPC definitions. */
export interface OpenApiSource {
  readonly services: readonly DescService[];
  readonly definitions: readonly AnyRpcDefinition[];
}

export function openApiRoutes(load: () => Promise<OpenApiSource>): Route[] {
  let reply: Promise<HttpReply> | undefined;
  const build = async (): Promise<HttpReply> => {
    const [{ services, definitions }, { createOpenApiDocument }] = await Promise.all([load(), import('./document.js')]);
    const facts = new Map<DescMethod, MethodFacts>();
    for (const d of definitions) facts.set(d.method, { permission: d.permission, created: d.created === true, system: d.context === 'system' });
    return {
      status: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' },
      body: JSON.stringify(createOpenApiDocument(services, (method) => facts.get(method))),
    };
  };
  const handler = (): Promise<HttpReply> =>
    (reply ??= build().catch((error: unknown) => {
      reply = undefined;
      throw error;
    }));
  return [{ method: 'GET', pattern: OPENAPI_PATH, handler }];
}
