/**
 * The OpenAPI 3.1 document of the JSON/HTTP API, generated from the same google.api.http
 * bindings the JSON transcoder routes (compileHttpRules) and the messages' proto3 JSON
 * mapping: nothing in it is written by hand, so it cannot drift from what the node serves.
 * Served at GET /openapi.json (docs/api/openapi.md).
 */
import type { DescService } from '@bufbuild/protobuf';
import { compileHttpRules } from '../transport/http-rules.js';
import type { ComponentSchemas, JsonSchema } from './json-schema.js';
import { errorResponse, operationOf, type DescribeMethod } from './operations.js';

export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: Readonly<Record<string, string>>;
  readonly servers: readonly { readonly url: string; readonly description: string }[];
  readonly tags: readonly { readonly name: string; readonly description: string }[];
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components: {
    readonly schemas: Readonly<Record<string, JsonSchema>>;
    readonly responses: Readonly<Record<string, JsonSchema>>;
    readonly securitySchemes: Readonly<Record<string, JsonSchema>>;
  };
}

const securitySchemes = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'A personal access token or an access token of the instance the Host names; system-context operations take a system user\'s self-signed JWT (docs/api/instances.md).',
  },
};

export function createOpenApiDocument(services: readonly DescService[], describe: DescribeMethod): OpenApiDocument {
  const components: ComponentSchemas = new Map();
  const paths: Record<string, Record<string, unknown>> = {};
  const seenIds = new Map<string, number>();
  const responses = { Error: errorResponse(components) };
  for (const binding of compileHttpRules(services)) {
    const base = `${binding.method.parent.name}_${binding.method.name}`;
    const count = (seenIds.get(base) ?? 0) + 1;
    seenIds.set(base, count);
    const operationId = count === 1 ? base : `${base}_${count}`; // additional bindings
    const item = (paths[binding.pattern] ??= {});
    item[binding.httpMethod.toLowerCase()] = operationOf(binding, operationId, describe(binding.method), components);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tessera resource and settings API',
      version: 'v3alpha',
      description:
        'JSON/HTTP transcoding of the platform services in the proto3 JSON mapping: lowerCamelCase names (query parameters and request bodies also take the proto snake_case names), enums as value names (numbers accepted on input), 64-bit integers as strings, Timestamp and Duration as strings. The instance is chosen by the Host header. Generated from the protos\' google.api.http annotations (docs/api/openapi.md).',
    },
    servers: [{ url: '/', description: 'The node and Host this document was fetched from.' }],
    tags: services.map((service) => ({ name: service.name, description: `\`${service.typeName}\`` })),
    paths,
    components: { schemas: sorted(components), responses, securitySchemes },
  };
}

function sorted(components: ComponentSchemas): Record<string, JsonSchema> {
  return Object.fromEntries([...components].sort(([a], [b]) => a.localeCompare(b)));
}
