/**
 * One OpenAPI operation per google.api.http binding, read the way the JSON transcoder serves it
 * (json-transcoder.ts, reference facts §1.3): path variables, the named body field as the
 * request body, every other field a query parameter in dotted JSON names (`ctx.orgId`,
 * `query.limit`) as far as a query string can set it (scalars, enums, lists of them, and
 * well-known types with a string form), the output message as the success response and
 * google.rpc.Status for every error.
 */
import type { DescField, DescMessage, DescMethod } from '@bufbuild/protobuf';
import { StatusSchema } from '../../gen/google/rpc/status_pb.js';
import type { HttpBinding } from '../transport/http-rules.js';
import { fieldSchema, isScalarLikeMessage, messageSchema, type ComponentSchemas, type JsonSchema } from './json-schema.js';

/** What the RPC definitions add to the descriptors; undefined for a method not implemented. */
export interface MethodFacts {
  /** The JSON transport answers 201 (a create) instead of 200. */
  readonly created?: boolean;
  /** The permission the caller needs (`authenticated`: any caller). */
  readonly permission: string;
  /** A system-context RPC: any Host, system users only. */
  readonly system?: boolean;
}

export type DescribeMethod = (method: DescMethod) => MethodFacts | undefined;

export type Operation = Readonly<Record<string, unknown>>;

/** Query parameters nest at most this deep (messages that contain themselves stop here). */
const MAX_QUERY_DEPTH = 4;

export function operationOf(binding: HttpBinding, operationId: string, facts: MethodFacts | undefined, components: ComponentSchemas): Operation {
  const { method, bodyField } = binding;
  const operation: Record<string, unknown> = {
    operationId,
    tags: [method.parent.name],
    summary: method.name,
    description: describeOperation(method, facts),
    parameters: [...pathParameters(binding, components), ...queryParameters(binding, components)],
    responses: responsesOf(method, facts, components),
    security: [{ bearer: [] }],
  };
  if (bodyField !== undefined) {
    operation.requestBody = { content: { 'application/json': { schema: fieldSchema(bodyField, components) } } };
  }
  if (facts?.permission !== undefined) operation['x-tessera-permission'] = facts.permission;
  return operation;
}

function describeOperation(method: DescMethod, facts: MethodFacts | undefined): string {
  const rpc = `RPC \`${method.parent.typeName}/${method.name}\` (also served over Connect, gRPC-web and gRPC).`;
  if (facts === undefined) return `${rpc} Not implemented yet: answers 501.`;
  const caller = facts.system === true ? 'a system user (system context, any Host)' : 'a user of the instance the Host names';
  const permission = facts.permission === 'authenticated' ? 'any authenticated caller' : `permission \`${facts.permission}\``;
  return `${rpc} Caller: ${caller}; requires ${permission}.`;
}

function pathParameters(binding: HttpBinding, components: ComponentSchemas): JsonSchema[] {
  return binding.pathParams.map((p) => {
    const leaf = p.fields[p.fields.length - 1] as DescField; // compileHttpRules checked the path is non-empty
    return {
      name: p.param,
      in: 'path',
      required: true,
      description: `Sets \`${p.fields.map((f) => f.jsonName).join('.')}\`.`,
      schema: fieldSchema(leaf, components),
    };
  });
}

/** Top-level fields that start a path variable or are the body: their whole subtree is bound. */
function boundHeads(binding: HttpBinding): Set<DescField> {
  const heads = new Set<DescField>();
  for (const p of binding.pathParams) if (p.fields[0] !== undefined) heads.add(p.fields[0]);
  if (binding.bodyField !== undefined) heads.add(binding.bodyField);
  return heads;
}

function queryParameters(binding: HttpBinding, components: ComponentSchemas): JsonSchema[] {
  const bound = boundHeads(binding);
  const parameters: JsonSchema[] = [];
  for (const field of binding.method.input.fields) {
    if (!bound.has(field)) collectQuery(field, field.jsonName, 1, components, parameters);
  }
  return parameters;
}

function collectQuery(field: DescField, name: string, depth: number, components: ComponentSchemas, out: JsonSchema[]): void {
  switch (field.fieldKind) {
    case 'scalar':
    case 'enum':
      out.push(queryParameter(field, name, fieldSchema(field, components)));
      return;
    case 'list':
      if (field.listKind !== 'message') out.push({ ...queryParameter(field, name, fieldSchema(field, components)), style: 'form', explode: true });
      return;
    case 'message':
      if (isScalarLikeMessage(field.message)) out.push(queryParameter(field, name, messageSchema(field.message, components)));
      else if (depth < MAX_QUERY_DEPTH) collectNested(field.message, name, depth, components, out);
      return;
    case 'map':
      return; // a query string cannot carry a map
  }
}

function collectNested(message: DescMessage, prefix: string, depth: number, components: ComponentSchemas, out: JsonSchema[]): void {
  for (const child of message.fields) collectQuery(child, `${prefix}.${child.jsonName}`, depth + 1, components, out);
}

function queryParameter(field: DescField, name: string, schema: JsonSchema): JsonSchema {
  if (field.oneof === undefined) return { name, in: 'query', schema };
  return { name, in: 'query', description: `Member of the oneof \`${field.oneof.name}\`: set at most one.`, schema };
}

/** The shared error reply, defined once under components.responses. */
export function errorResponse(components: ComponentSchemas): JsonSchema {
  return {
    description: 'An error: google.rpc.Status with a platform.v1.ErrorDetail (its `id` is the stable error code) and, for invalid input, a google.rpc.BadRequest naming the fields. 503 answers carry Retry-After.',
    content: { 'application/json': { schema: messageSchema(StatusSchema, components) } },
  };
}

const errorRef = { $ref: '#/components/responses/Error' };

function responsesOf(method: DescMethod, facts: MethodFacts | undefined, components: ComponentSchemas): Record<string, unknown> {
  if (facts === undefined) return { '501': errorRef, default: errorRef };
  const success = { description: 'Success.', content: { 'application/json': { schema: messageSchema(method.output, components) } } };
  return { [facts.created === true ? '201' : '200']: success, default: errorRef };
}
