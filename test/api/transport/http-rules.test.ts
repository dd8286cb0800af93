import { create, createFileRegistry, setExtension, type DescService, type MessageInitShape } from '@bufbuild/protobuf';
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
  MethodOptionsSchema,
} from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import { ProgrammerError } from '../../../actors/index.js';
import { compileHttpRules, resolveFieldPath } from '../../../src/api/transport/http-rules.js';
import { http } from '../../../src/gen/google/api/annotations_pb.js';
import { HttpRuleSchema } from '../../../src/gen/google/api/http_pb.js';
import {
  PlatformOrganizations,
  SearchOrganizationsRequestSchema,
} from '../../../src/gen/platform/resources/org/v3alpha/org_service_pb.js';

type Rule = MessageInitShape<typeof HttpRuleSchema>;
const { OPTIONAL: LABEL_OPTIONAL, REPEATED: LABEL_REPEATED } = FieldDescriptorProto_Label;
const { STRING: TYPE_STRING, MESSAGE: TYPE_MESSAGE } = FieldDescriptorProto_Type;

/** A one-method service `test.rules.Svc/Do` whose input has id, inner.key, tags and inner. */
function serviceWithRule(rule: Rule, clientStreaming = false): DescService {
  const options = create(MethodOptionsSchema);
  setExtension(options, http, create(HttpRuleSchema, rule));
  const file = create(FileDescriptorProtoSchema, {
    name: 'test/rules.proto',
    package: 'test.rules',
    syntax: 'proto3',
    messageType: [
      {
        name: 'Req',
        field: [
          { name: 'id', number: 1, type: TYPE_STRING, label: LABEL_OPTIONAL, jsonName: 'id' },
          { name: 'inner', number: 2, type: TYPE_MESSAGE, typeName: '.test.rules.Inner', label: LABEL_OPTIONAL, jsonName: 'inner' },
          { name: 'tags', number: 3, type: TYPE_STRING, label: LABEL_REPEATED, jsonName: 'tags' },
        ],
      },
      { name: 'Inner', field: [{ name: 'key', number: 1, type: TYPE_STRING, label: LABEL_OPTIONAL, jsonName: 'key' }] },
      { name: 'Res' },
    ],
    service: [{ name: 'Svc', method: [{ name: 'Do', inputType: '.test.rules.Req', outputType: '.test.rules.Res', options, clientStreaming }] }],
  });
  const service = createFileRegistry(file, () => undefined).getService('test.rules.Svc');
  if (service === undefined) throw new Error('test service not built');
  return service;
}

describe('compileHttpRules', () => {
  it('compiles every rule of PlatformOrganizations', () => {
    const bindings = compileHttpRules([PlatformOrganizations]).map((b) => ({
      method: b.method.name,
      http: `${b.httpMethod} ${b.pattern}`,
      params: b.pathParams.map((p) => `${p.param}=${p.fields.map((f) => f.name).join('.')}`),
      body: b.bodyField?.name,
    }));
    expect(bindings).toEqual([
      { method: 'CreateOrganization', http: 'POST /resources/v3alpha/organizations', params: [], body: 'organization' },
      { method: 'GetOrganization', http: 'GET /resources/v3alpha/organizations/{id}', params: ['id=id'], body: undefined },
      { method: 'PatchOrganization', http: 'PATCH /resources/v3alpha/organizations/{id}', params: ['id=id'], body: 'organization' },
      { method: 'DeleteOrganization', http: 'DELETE /resources/v3alpha/organizations/{id}', params: ['id=id'], body: undefined },
      { method: 'SearchOrganizations', http: 'POST /resources/v3alpha/organizations/_search', params: [], body: 'filters' },
      {
        method: 'SetOrganizationAsInstanceDefault',
        http: 'POST /resources/v3alpha/organizations/{id}/_set_as_instance_default',
        params: ['id=id'],
        body: undefined,
      },
      { method: 'GetInstanceDefaultOrganization', http: 'GET /resources/v3alpha/organizations/_instance_default', params: [], body: undefined },
    ]);
  });

  it('supports nested variables, {x=*}, custom methods and additional bindings', () => {
    const service = serviceWithRule({
      pattern: { case: 'custom', value: { kind: 'search', path: '/v1/{inner.key}/items/{id=*}' } },
      body: 'tags',
      additionalBindings: [{ pattern: { case: 'get', value: '/v1/items/{id}' } }],
    });
    const bindings = compileHttpRules([service]).map((b) => [b.httpMethod, b.pattern, b.pathParams.map((p) => p.param), b.bodyField?.name]);
    expect(bindings).toEqual([
      ['SEARCH', '/v1/{inner_key}/items/{id}', ['inner_key', 'id'], 'tags'],
      ['GET', '/v1/items/{id}', ['id'], undefined],
    ]);
  });

  it('skips methods without a rule', () => {
    const service = createFileRegistry(
      create(FileDescriptorProtoSchema, {
        name: 'test/bare.proto',
        package: 'test.bare',
        syntax: 'proto3',
        messageType: [{ name: 'M' }],
        service: [{ name: 'Svc', method: [{ name: 'Do', inputType: '.test.bare.M', outputType: '.test.bare.M' }] }],
      }),
      () => undefined,
    ).getService('test.bare.Svc');
    expect(compileHttpRules(service === undefined ? [] : [service])).toEqual([]);
  });

  it.each<[string, Rule]>([
    ['no pattern', { body: 'tags' }],
    ['a relative path', { pattern: { case: 'get', value: 'v1/items' } }],
    ['an empty segment', { pattern: { case: 'get', value: '/v1//items' } }],
    ['a trailing slash', { pattern: { case: 'get', value: '/v1/items/' } }],
    ['a wildcard literal', { pattern: { case: 'get', value: '/v1/*/items' } }],
    ['a multi-segment capture', { pattern: { case: 'get', value: '/v1/{id=items/*}' } }],
    ['a catch-all capture', { pattern: { case: 'get', value: '/v1/{id=**}' } }],
    ['a variable naming no field', { pattern: { case: 'get', value: '/v1/{nope}' } }],
    ['a variable naming a message', { pattern: { case: 'get', value: '/v1/{inner}' } }],
    ['a variable naming a repeated field', { pattern: { case: 'get', value: '/v1/{tags}' } }],
    ['a variable bound twice', { pattern: { case: 'get', value: '/v1/{id}/{id}' } }],
    ['a mixed segment', { pattern: { case: 'get', value: '/v1/{id}:cancel' } }],
    ['body "*"', { pattern: { case: 'post', value: '/v1/items' }, body: '*' }],
    ['a body naming no field', { pattern: { case: 'post', value: '/v1/items' }, body: 'nope' }],
    ['a field in path and body', { pattern: { case: 'post', value: '/v1/{id}' }, body: 'id' }],
    ['a response_body', { pattern: { case: 'get', value: '/v1/items' }, responseBody: 'tags' }],
    ['a custom pattern without method', { pattern: { case: 'custom', value: { kind: '', path: '/v1/items' } } }],
    ['nested additional bindings', {
      pattern: { case: 'get', value: '/v1/a' },
      additionalBindings: [{ pattern: { case: 'get', value: '/v1/b' }, additionalBindings: [{ pattern: { case: 'get', value: '/v1/c' } }] }],
    }],
  ])('throws a ProgrammerError at startup for %s', (_, rule) => {
    expect(() => compileHttpRules([serviceWithRule(rule)])).toThrow(ProgrammerError);
  });

  it('throws for a rule on a streaming method', () => {
    expect(() => compileHttpRules([serviceWithRule({ pattern: { case: 'post', value: '/v1/items' } }, true)])).toThrow(ProgrammerError);
  });
});

describe('resolveFieldPath', () => {
  it.each([
    ['query.limit', ['query', 'limit']],
    ['ctx.orgId', ['ctx', 'org_id']],
    ['ctx.org_id', ['ctx', 'org_id']],
    ['sortingColumn', ['sorting_column']],
  ])('resolves %s', (key, names) => {
    expect(resolveFieldPath(SearchOrganizationsRequestSchema, key)?.map((f) => f.name)).toEqual(names);
  });

  it.each(['nope', 'query.nope', 'query.limit.deeper', 'filters.name', '', 'ctx.'])('leaves %j unresolved', (key) => {
    expect(resolveFieldPath(SearchOrganizationsRequestSchema, key)).toBeUndefined();
  });
});
