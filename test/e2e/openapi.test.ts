/**
 * GET /openapi.json against a started node: the document is valid OpenAPI (swagger-parser),
 * lists exactly the google.api.http bindings written in the protos, every operation in it is
 * routed (not 404/405) and its paths allow no other method, and real responses validate
 * against the documented schemas (proto3 JSON: int64 as strings, enums as names, timestamps).
 */
import { validate as validateOpenApi } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestNode, type TestNode } from './harness.js';
import { createSchemaValidator, documentBindings, fill, matches, protoBindings, type OpenApiDoc } from './openapi.fixture.js';

describe('OpenAPI document', () => {
  let node: TestNode;
  let doc: OpenApiDoc;

  beforeAll(async () => {
    node = await startTestNode();
    const response = await fetch(`${node.baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    doc = (await response.json()) as OpenApiDoc;
  });
  afterAll(async () => {
    await node.stop();
    node.cleanup();
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(await validateOpenApi(structuredClone(doc) as never)).toEqual({ valid: true, warnings: [], specification: 'OpenAPI' });
  });

  it('the validator rejects a broken document (control)', async () => {
    const broken = structuredClone(doc);
    const item = broken.paths['/resources/v3alpha/organizations/{id}']!;
    item.get!.parameters = item.get!.parameters!.filter((p: { in: string }) => p.in !== 'path');
    const result = await validateOpenApi(broken as never);
    expect(result.valid).toBe(false);
    expect(result.valid === false && result.errors.map((e) => e.message).join('\n')).toMatch(/path parameter/i);
  });

  it('documents exactly the google.api.http bindings of the protos', () => {
    const fromProtos = protoBindings();
    expect(fromProtos.length).toBeGreaterThan(100);
    expect(documentBindings(doc)).toEqual(fromProtos);
  });

  it('every documented operation is routed: the handler answers, never the router 404 or 405', async () => {
    const unrouted: string[] = [];
    const statuses = new Set<number>();
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const reply = await api(node, '')(method.toUpperCase(), fill(template, '123'), emptyBody(operation.requestBody));
        statuses.add(reply.status);
        if (reply.status === 405 || isRouterNotFound(reply)) unrouted.push(`${method} ${template} → ${reply.status}`);
      }
    }
    expect(unrouted).toEqual([]);
    expect([...statuses].sort()).toEqual([401]); // every one reached authentication
  });

  it('an undocumented path gets the router 404 (control of the check above)', async () => {
    const reply = await api(node, '')('GET', '/resources/v3alpha/not-a-resource/123');
    expect(isRouterNotFound(reply)).toBe(true);
  });

  it('documented paths accept no method the document does not list', async () => {
    const extra: string[] = [];
    for (const template of Object.keys(doc.paths)) {
      const path = fill(template, '123');
      const reply = await api(node, '')('TRACE', path);
      expect(reply.status).toBe(405);
      const allowed = new Set(String(reply.headers.allow).split(', ').filter((m) => m !== 'HEAD' && m !== 'OPTIONS'));
      const documented = new Set(Object.entries(doc.paths).filter(([t]) => matches(t, path)).flatMap(([, item]) => Object.keys(item).map((m) => m.toUpperCase())));
      if ([...allowed].sort().join() !== [...documented].sort().join()) extra.push(`${template}: served ${[...allowed]} documented ${[...documented]}`);
    }
    expect(extra).toEqual([]);
  });

  it('real responses validate against the documented schemas', async () => {
    const validate = createSchemaValidator(doc);
    const call = api(node);
    const check = async (method: string, path: string, body?: unknown) => {
      const reply = await call(method, path, body);
      // As the router does: of the matching templates, the one with the fewest variables.
      const [template] = Object.keys(doc.paths)
        .filter((t) => matches(t, path) && doc.paths[t]![method.toLowerCase()] !== undefined)
        .sort((a, b) => a.split('{').length - b.split('{').length);
      const operation = doc.paths[template!]![method.toLowerCase()]!;
      const documented = operation.responses[String(reply.status)];
      expect(documented, `${method} ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`).toBeDefined();
      expect(validate(documented.content['application/json'].schema, reply.body)).toEqual([]);
      return reply.body;
    };
    const org = await check('POST', '/resources/v3alpha/organizations', { name: 'Schema Check' });
    const orgId: string = org.details.id;
    await check('GET', `/resources/v3alpha/organizations/${orgId}`);
    await check('POST', '/resources/v3alpha/organizations/_search', []);
    const user = await check('POST', '/resources/v3alpha/users', { human: { username: 'schema-check', profile: { givenName: 'S', familyName: 'C' }, email: { address: 'schema@example.com' } } });
    await check('GET', `/resources/v3alpha/users/${user.details.id as string}`);
    await check('POST', '/resources/v3alpha/users/_search', []);
    const project = await check('POST', '/resources/v3alpha/projects', { name: 'Schema Project' });
    await check('GET', `/resources/v3alpha/projects/${project.details.id as string}`);
    // Events carry a google.protobuf.Struct payload (any JSON object) and int64 positions.
    const events = await check('POST', '/resources/v3alpha/events/_search', [{ aggregate: { aggregateType: 'org', aggregateId: orgId } }]);
    expect(events.result[0].payload).toMatchObject({ name: 'Schema Check' });

    // Control: the same schema refuses an int64 sent as a JSON number and an enum as a number.
    const schema = doc.paths['/resources/v3alpha/organizations/{id}']!.get!.responses['200'].content['application/json'].schema;
    const got = (await call('GET', `/resources/v3alpha/organizations/${orgId}`)).body;
    expect(validate(schema, got)).toEqual([]);
    expect(validate(schema, { organization: { ...got.organization, details: { ...got.organization.details, sequence: 5 } } })).not.toEqual([]);
    expect(validate(schema, { organization: { ...got.organization, state: 1 } })).not.toEqual([]);
  });
});

/** The smallest body of the documented type: `[]` for a list body, `{}` for a message. */
function emptyBody(requestBody: any): unknown {
  if (requestBody === undefined) return undefined;
  return requestBody.content['application/json'].schema.type === 'array' ? [] : {};
}

/** The router's own 404 (no route), told apart from a handler's 404 by its bare body. */
function isRouterNotFound(reply: { status: number; body: Record<string, any> | undefined }): boolean {
  return reply.status === 404 && reply.body?.details === undefined;
}
