/**
 * GET /openapi.json on every host (no tenant, no authentication: it describes the API, not
 * an instance). The document is built on the first request and then served from one string.
 */
import type { DescMethod, DescService } from '@bufbuild/protobuf';
import type { Route } from '../../http/router.js';
import type { HttpReply } from '../../http/types.js';
import type { AnyRpcDefinition, RpcDefinitions } from '../invoker.js';
import { createOpenApiDocument, OPENAPI_PATH } from './document.js';
import type { MethodFacts } from './operations.js';

export function openApiRoutes(services: readonly DescService[], definitions: RpcDefinitions): Route[] {
  let reply: HttpReply | undefined;
  const build = (list: readonly AnyRpcDefinition[]): HttpReply => {
    const facts = new Map<DescMethod, MethodFacts>();
    for (const d of list) facts.set(d.method, { permission: d.permission, created: d.created === true, system: d.context === 'system' });
    return {
      status: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' },
      body: JSON.stringify(createOpenApiDocument(services, (method) => facts.get(method))),
    };
  };
  const handler = async (): Promise<HttpReply> => (reply ??= build(typeof definitions === 'function' ? await definitions() : definitions));
  return [{ method: 'GET', pattern: OPENAPI_PATH, handler }];
}
