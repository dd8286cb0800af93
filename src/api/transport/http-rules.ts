/**
 * Compiles the `google.api.http` rules of our services into HTTP bindings, the way the
 * reference gateway reads them (reference facts §1.3): `{field}` / `{a.b}` path variables, one
 * named body field (no `*`), every other field a query parameter spelled by proto or JSON name.
 * A rule we cannot serve exactly is a ProgrammerError at startup, never a surprise at runtime.
 */
import {
  getOption,
  hasOption,
  type DescField,
  type DescMessage,
  type DescMethod,
  type DescService,
} from '@bufbuild/protobuf';
import { ProgrammerError } from '../../../actors/index.js';
import { http } from '../../gen/google/api/annotations_pb.js';
import type { HttpRule } from '../../gen/google/api/http_pb.js';

/** A path variable: the router parameter and the field path it sets. */
export interface PathParam {
  readonly param: string;
  readonly fields: readonly DescField[];
}

export interface HttpBinding {
  readonly method: DescMethod;
  /** Upper case: GET, POST, ... */
  readonly httpMethod: string;
  /** Router pattern, e.g. `/resources/v3alpha/organizations/{id}`. */
  readonly pattern: string;
  readonly pathParams: readonly PathParam[];
  /** The top-level field the body fills; undefined when the rule has no body. */
  readonly bodyField: DescField | undefined;
}

const fieldIndexes = new WeakMap<DescMessage, ReadonlyMap<string, DescField>>();
const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The HTTP bindings (rule and additional bindings) of every method that has a rule. */
export function compileHttpRules(services: readonly DescService[]): HttpBinding[] {
  const bindings: HttpBinding[] = [];
  for (const service of services) {
    for (const method of service.methods) {
      if (!hasOption(method, http)) continue;
      const rule = getOption(method, http);
      if (method.methodKind !== 'unary') fail(method, 'HTTP rules are only supported on unary methods');
      bindings.push(compileRule(method, rule));
      for (const extra of rule.additionalBindings) {
        if (extra.additionalBindings.length > 0) fail(method, 'additional_bindings must not nest');
        bindings.push(compileRule(method, extra));
      }
    }
  }
  return bindings;
}

/** Looks up a field of `message` by proto name (`org_id`) or JSON name (`orgId`). */
export function findField(message: DescMessage, name: string): DescField | undefined {
  let index = fieldIndexes.get(message);
  if (index === undefined) {
    const byName = new Map<string, DescField>();
    for (const field of message.fields) byName.set(field.name, field).set(field.jsonName, field);
    fieldIndexes.set(message, byName);
    index = byName;
  }
  return index.get(name);
}

/**
 * Resolves a dotted query key (`ctx.orgId`, `query.limit`) to its field path; undefined for
 * unknown keys. Intermediate segments must be singular message fields.
 */
export function resolveFieldPath(message: DescMessage, key: string): DescField[] | undefined {
  const path: DescField[] = [];
  let current: DescMessage | undefined = message;
  for (const segment of key.split('.')) {
    if (current === undefined) return undefined;
    const field = findField(current, segment);
    if (field === undefined) return undefined;
    path.push(field);
    current = field.fieldKind === 'message' ? field.message : undefined;
  }
  return path;
}

function compileRule(method: DescMethod, rule: HttpRule): HttpBinding {
  const { httpMethod, template } = patternOf(method, rule);
  if (rule.responseBody !== '') fail(method, 'response_body is not supported');
  const { pattern, pathParams } = compileTemplate(method, template);
  const bodyField = compileBody(method, rule.body);
  if (bodyField !== undefined && pathParams.some((p) => p.fields[0] === bodyField)) {
    fail(method, `field "${bodyField.name}" is bound to both the path and the body`);
  }
  return { method, httpMethod, pattern, pathParams, bodyField };
}

function patternOf(method: DescMethod, rule: HttpRule): { httpMethod: string; template: string } {
  switch (rule.pattern.case) {
    case 'custom':
      if (!/^[A-Z]+$/i.test(rule.pattern.value.kind)) fail(method, 'custom pattern needs a method name');
      return { httpMethod: rule.pattern.value.kind.toUpperCase(), template: rule.pattern.value.path };
    case undefined:
      return fail(method, 'rule has no pattern');
    default:
      return { httpMethod: rule.pattern.case.toUpperCase(), template: rule.pattern.value };
  }
}

function compileTemplate(method: DescMethod, template: string): { pattern: string; pathParams: PathParam[] } {
  if (!template.startsWith('/') || template.length < 2) fail(method, `path "${template}" must start with "/"`);
  const pathParams: PathParam[] = [];
  const segments = template.slice(1).split('/').map((segment) => {
    if (segment === '') fail(method, `path "${template}" has an empty segment`);
    if (!segment.startsWith('{')) {
      if (/[{}*=]/.test(segment)) fail(method, `path segment "${segment}" is not a literal`);
      return segment;
    }
    const param = compileVariable(method, segment);
    if (pathParams.some((p) => p.param === param.param)) fail(method, `variable "${segment}" is bound twice`);
    pathParams.push(param);
    return `{${param.param}}`;
  });
  return { pattern: `/${segments.join('/')}`, pathParams };
}

/** `{id}`, `{id=*}` or `{a.b}`; multi-segment captures (`**`, `a/*`) are not supported. */
function compileVariable(method: DescMethod, segment: string): PathParam {
  const match = /^\{([^=}]+)(?:=\*)?\}$/.exec(segment);
  const dotted = match?.[1];
  if (dotted === undefined) return fail(method, `path variable "${segment}" is not supported`);
  const names = dotted.split('.');
  if (!names.every((n) => identifier.test(n))) fail(method, `path variable "${segment}" is malformed`);
  const fields: DescField[] = [];
  let current: DescMessage | undefined = method.input;
  for (const name of names) {
    const field: DescField | undefined = current?.fields.find((f) => f.name === name);
    if (field === undefined) return fail(method, `path variable "${segment}" names no field`);
    fields.push(field);
    current = field.fieldKind === 'message' ? field.message : undefined;
  }
  const leaf = fields[fields.length - 1];
  if (leaf === undefined || (leaf.fieldKind !== 'scalar' && leaf.fieldKind !== 'enum')) {
    fail(method, `path variable "${segment}" must name a singular scalar field`);
  }
  return { param: names.join('_'), fields };
}

function compileBody(method: DescMethod, body: string): DescField | undefined {
  if (body === '') return undefined;
  if (body === '*') return fail(method, 'body "*" is not supported; name one field');
  const field = method.input.fields.find((f) => f.name === body);
  if (field === undefined) return fail(method, `body "${body}" names no top-level field`);
  return field;
}

function fail(method: DescMethod, problem: string): never {
  throw new ProgrammerError(`google.api.http rule of ${method.parent.typeName}.${method.name}: ${problem}`);
}
