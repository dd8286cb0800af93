/**
 * GET /openapi.json on every host (no tenant, no authentication: it describes the API, not
 * an instance). The document is built on the first request and then served from one string.
 */
import type { DescMethod, DescService } from '@bufbuild/protobuf';
import type { Route } from '../../http/router.js';
import type { HttpReply } from '../../http/types.js';
import type { AnyRpcDefinition } from '../invoker.js';
import { createOpenApiDocument, OPENAPI_PATH } from './document.js';
import type { MethodFacts } from './operations.js';

export function openApiRoutes(services: readonly DescService[], definitions: readonly AnyRpcDefinition[]): Route[] {
  const facts = new Map<DescMethod, MethodFacts>();
  for (const d of definitions) facts.set(d.method, { permission: d.permission, created: d.created === true, system: d.context === 'system' });
  let reply: HttpReply | undefined;
  const handler = (): HttpReply =>
    (reply ??= {
      status: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' },
      body: JSON.stringify(createOpenApiDocument(services, (method) => facts.get(method))),
    });
  return [{ method: 'GET', pattern: OPENAPI_PATH, handler }];
}
