/**
 * JSON/HTTP transcoding as the reference gateway does it (reference facts §1.3, §1.4): path
 * variables and query parameters (proto or JSON names, dotted) plus one body field in proto3
 * JSON; output in proto3 JSON (lowerCamelCase, enums as names, 64-bit as strings, zero values
 * omitted). Every malformed input is a 400 naming the field or parameter, never a 500.
 */
import { create, fromJson, ScalarType, toJson, type DescEnum, type DescField } from '@bufbuild/protobuf';
import type { DescMessage, DescService, JsonValue, Message } from '@bufbuild/protobuf';
import { reflect, type ReflectMessage } from '@bufbuild/protobuf/reflect';
import { base64Decode } from '@bufbuild/protobuf/wire';
import { isAppError, ProgrammerError, validationFailed, type FieldViolation } from '../../../actors/index.js';
import { toWireError } from '../../http/error-mapping.js';
import { json } from '../../http/reply.js';
import type { Route } from '../../http/router.js';
import type { HttpReply, HttpRequest } from '../../http/types.js';
import type { CallMeta, RpcInvoker } from '../rpc.js';
import { compileHttpRules, findField, resolveFieldPath, type HttpBinding, type PathParam } from './http-rules.js';

/** A path variable and the parameter name errors report (`id`, `inner.key`). */
interface PathPlan extends PathParam {
  readonly name: string;
}

interface RoutePlan {
  readonly binding: HttpBinding;
  readonly pathParams: readonly PathPlan[];
  readonly input: DescMessage;
  readonly output: DescMessage;
  /** JSON name of the body field: the body is read as `{[bodyKey]: body}`. */
  readonly bodyKey: string | undefined;
  /** Field paths bound by path or body; query parameters cannot set them. */
  readonly bound: readonly (readonly DescField[])[];
}

const strictRead = { ignoreUnknownFields: false } as const;
const lenientRead = { ignoreUnknownFields: true } as const;
const writeOptions = { alwaysEmitImplicit: false } as const;
const invalid = Symbol('invalid');
const integer = /^-?\d+$/;
const float = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$|^-?Infinity$|^NaN$/;
const base64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** One route per google.api.http binding of the given services. */
export function createJsonRoutes(services: readonly DescService[], invoke: RpcInvoker): Route[] {
  return compileHttpRules(services).map((binding) => {
    const plan = planOf(binding);
    return { method: binding.httpMethod, pattern: binding.pattern, handler: (req) => handle(plan, invoke, req) };
  });
}

function planOf(binding: HttpBinding): RoutePlan {
  const { bodyField, pathParams, method } = binding;
  const bound = pathParams.map((p) => p.fields);
  return {
    binding,
    pathParams: pathParams.map((p) => ({ ...p, name: p.fields.map((f) => f.jsonName).join('.') })),
    input: method.input,
    output: method.output,
    bodyKey: bodyField?.jsonName,
    bound: bodyField === undefined ? bound : [...bound, [bodyField]],
  };
}

async function handle(plan: RoutePlan, invoke: RpcInvoker, req: HttpRequest): Promise<HttpReply> {
  try {
    const request = readRequest(plan, req);
    const result = await invoke(plan.binding.method, request, metaOf(req));
    return json(result.status, toJson(plan.output, result.message, writeOptions));
  } catch (error) {
    const wire = toWireError(error);
    return json(wire.httpStatus, wire.body, wire.headers);
  }
}

function metaOf(req: HttpRequest): CallMeta {
  return new JsonCallMeta(req);
}

/**
 * A request's CallMeta. The signal and the request id are read through, lazily: the adapters
 * create the AbortController only when someone reads the signal. Getters on a class, not in an
 * object literal: V8 puts each literal accessor pair in the old generation, and the pair's
 * closures then kept the whole request through scavenges into old space (bench/README.md,
 * "What survives a scavenge", GET organization).
 */
class JsonCallMeta implements CallMeta {
  readonly headers: Readonly<Record<string, string>>;
  readonly host: string;
  readonly protocol = 'json';
  readonly remoteAddress: string;
  readonly scheme: 'http' | 'https';
  readonly notes: HttpRequest['notes'];

  constructor(private readonly req: HttpRequest) {
    const headers = req.headers;
    this.headers = headers;
    this.host = headers.host ?? '';
    this.remoteAddress = req.remoteAddress;
    this.scheme = req.scheme;
    this.notes = req.notes;
  }

  get signal(): AbortSignal {
    return this.req.signal;
  }

  get requestId(): string {
    return this.req.requestId;
  }
}

function readRequest(plan: RoutePlan, req: HttpRequest): Message {
  const message =
    plan.bodyKey !== undefined && req.body.length > 0 ? readBody(plan, plan.bodyKey, req.body) : create(plan.input);
  const target = reflect(plan.input, message);
  for (const param of plan.pathParams) setPathParam(target, param, req.params[param.param]);
  if (req.query !== '') applyQuery(plan, target, req.query);
  return message;
}

// --- body -------------------------------------------------------------------------------

function readBody(plan: RoutePlan, bodyKey: string, body: Buffer): Message {
  const wrapped = { [bodyKey]: parseJson(bodyKey, body) };
  try {
    return fromJson(plan.input, wrapped, strictRead);
  } catch {
    // Strict first: a lenient read also drops unknown enum names silently, which must fail.
    const found = locateJsonError(plan.input, wrapped, '');
    if (found !== undefined) throw validationFailed([found]);
    return readLenient(plan.input, wrapped, bodyKey); // only unknown keys failed: ignored
  }
}

function parseJson(bodyKey: string, body: Buffer): JsonValue {
  try {
    return JSON.parse(body.toString('utf8')) as JsonValue;
  } catch {
    throw validationFailed([violation(bodyKey, 'must be valid JSON')], 'request.malformed_json');
  }
}

function readLenient(desc: DescMessage, wrapped: JsonValue, bodyKey: string): Message {
  try {
    return fromJson(desc, wrapped, lenientRead);
  } catch {
    throw validationFailed([violation(bodyKey, 'is invalid')]);
  }
}

/**
 * Finds the first offending field of `json` against `desc` by re-reading each leaf alone,
 * so the path is exact (`filters[0].name.method`) and the reason never echoes the input.
 */
function locateJsonError(desc: DescMessage, value: unknown, path: string): FieldViolation | undefined {
  if (desc.typeName.startsWith('google.protobuf.')) {
    return readsAlone(desc, value) ? undefined : violation(path, 'has an invalid value'); // own JSON forms
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return violation(path, 'must be an object');
  const seen = new Set<object>();
  for (const [key, child] of Object.entries(value)) {
    const field = findField(desc, key);
    if (field === undefined) continue;
    const at = path === '' ? field.jsonName : `${path}.${field.jsonName}`;
    if (seen.has(field)) return violation(at, 'is set more than once');
    seen.add(field);
    if (child === null) continue;
    if (field.oneof !== undefined) {
      if (seen.has(field.oneof)) return violation(at, 'conflicts with another field of its oneof');
      seen.add(field.oneof);
    }
    const found = locateFieldError(field, child, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

function locateFieldError(field: DescField, value: unknown, at: string): FieldViolation | undefined {
  switch (field.fieldKind) {
    case 'message':
      return locateJsonError(field.message, value, at);
    case 'list':
      if (!Array.isArray(value)) return violation(at, 'must be an array');
      for (const [i, item] of value.entries()) {
        const found =
          field.listKind === 'message'
            ? locateJsonError(field.message, item, `${at}[${i}]`)
            : locateScalar(field, [item], `${at}[${i}]`);
        if (found !== undefined) return found;
      }
      return undefined;
    case 'map':
      return readsAlone(field.parent, { [field.name]: value }) ? undefined : violation(at, 'has an invalid entry');
    default:
      return locateScalar(field, value, at);
  }
}

/** Reads the field alone in its parent, so protobuf-es applies exactly its own rules. */
function locateScalar(field: DescField, value: unknown, at: string): FieldViolation | undefined {
  return readsAlone(field.parent, { [field.name]: value }) ? undefined : violation(at, expectation(field));
}

function readsAlone(desc: DescMessage, value: unknown): boolean {
  try {
    fromJson(desc, value as JsonValue, strictRead);
    return true;
  } catch {
    return false;
  }
}

function violation(field: string, description: string): FieldViolation {
  return { field, description };
}

const scalarExpectations: Partial<Record<ScalarType, string>> = {
  [ScalarType.BOOL]: 'must be true or false',
  [ScalarType.STRING]: 'must be a string',
  [ScalarType.BYTES]: 'must be base64',
  [ScalarType.DOUBLE]: 'must be a number',
  [ScalarType.FLOAT]: 'must be a number',
};

/** What a field accepts, for violation descriptions (never the rejected value itself). */
function expectation(field: DescField): string {
  if (field.enum !== undefined) return `must be a value of ${field.enum.typeName}`;
  if (field.scalar === undefined) return 'has an invalid value';
  const typeName = ScalarType[field.scalar].toLowerCase();
  return scalarExpectations[field.scalar] ?? `must be a decimal integer in the range of ${typeName}`;
}

// --- path and query ----------------------------------------------------------------------

/** What one path or query parameter sets; `name` is the parameter as the client wrote it. */
interface ParamInput {
  readonly name: string;
  readonly raw: string;
}

function setPathParam(target: ReflectMessage, param: PathPlan, raw: string | undefined): void {
  if (raw === undefined) throw new ProgrammerError(`router did not capture path parameter "${param.param}"`);
  assign(target, param.fields, 0, { name: param.name, raw });
}

function applyQuery(plan: RoutePlan, target: ReflectMessage, query: string): void {
  const seen = new Set<string>(); // singular fields set so far, by field-number path
  for (const [name, raw] of new URLSearchParams(query)) {
    const fields = resolveFieldPath(plan.input, name);
    if (fields === undefined || isBound(plan, fields)) continue;
    if (fields[fields.length - 1]?.fieldKind !== 'list') {
      const key = fields.map((f) => f.number).join('.');
      if (seen.has(key)) throw paramError(name, 'must not be repeated');
      seen.add(key);
    }
    assign(target, fields, 0, { name, raw });
  }
}

function isBound(plan: RoutePlan, fields: readonly DescField[]): boolean {
  return plan.bound.some((path) => path.every((field, i) => i >= fields.length || fields[i] === field));
}

function assign(owner: ReflectMessage, fields: readonly DescField[], depth: number, input: ParamInput): void {
  const field = fields[depth];
  if (field === undefined) throw new ProgrammerError('empty field path');
  const set = field.oneof === undefined ? undefined : owner.oneofCase(field.oneof);
  if (set !== undefined && set !== field) throw paramError(input.name, 'conflicts with another field of its oneof');
  if (depth === fields.length - 1) return assignLeaf(owner, field, input);
  if (field.fieldKind !== 'message') throw new ProgrammerError('field paths pass through messages only');
  const child = owner.get(field);
  assign(child, fields, depth + 1, input);
  owner.set(field, child);
}

function assignLeaf(owner: ReflectMessage, field: DescField, input: ParamInput): void {
  try {
    switch (field.fieldKind) {
      case 'scalar':
        return owner.set(field, checked(parseScalar(field.scalar, input.raw), field, input));
      case 'enum':
        return owner.set(field, checked(parseEnum(field.enum, input.raw), field, input));
      case 'list':
        if (field.listKind === 'message') break;
        return owner.get(field).add(checked(parseListItem(field, input.raw), field, input));
      case 'message':
        return owner.set(field, reflect(field.message, fromJson(field.message, input.raw, strictRead)));
      case 'map':
        break;
    }
  } catch (error) {
    if (isAppError(error)) throw error;
    throw paramError(input.name, expectation(field)); // range checks of reflect, WKT parse errors
  }
  throw paramError(input.name, 'cannot be set as a query parameter');
}

function parseListItem(field: DescField & { fieldKind: 'list' }, raw: string): unknown {
  if (field.listKind === 'scalar') return parseScalar(field.scalar, raw);
  return field.listKind === 'enum' ? parseEnum(field.enum, raw) : invalid;
}

function checked<T>(value: T | typeof invalid, field: DescField, input: ParamInput): T {
  if (value === invalid) throw paramError(input.name, expectation(field));
  return value;
}

function parseScalar(type: ScalarType, raw: string): unknown {
  switch (type) {
    case ScalarType.STRING:
      return raw;
    case ScalarType.BOOL:
      return raw === 'true' ? true : raw === 'false' ? false : invalid;
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return float.test(raw) ? Number(raw) : invalid;
    case ScalarType.BYTES:
      return base64.test(raw) ? base64Decode(raw) : invalid;
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
    case ScalarType.SINT64:
      return integer.test(raw) ? BigInt(raw) : invalid;
    default:
      return integer.test(raw) ? Number(raw) : invalid;
  }
}

/** By value name or by the number of a declared value. */
function parseEnum(desc: DescEnum, raw: string): number | typeof invalid {
  if (integer.test(raw)) return desc.value[Number(raw)]?.number ?? invalid;
  return desc.values.find((v) => v.name === raw)?.number ?? invalid;
}

function paramError(name: string, description: string): Error {
  return validationFailed([violation(name, description)]);
}
