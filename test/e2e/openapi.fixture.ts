/**
 * Helpers of the OpenAPI suite: the google.api.http bindings read from the .proto text itself
 * (independently of the descriptors the node generates its document from), template
 * matching, and a JSON Schema validator over the document's components.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';

const PROTO_ROOT = join(import.meta.dirname, '..', '..', 'proto');

export interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, any>; requestBody?: any; parameters?: any[] }>>;
  components: { schemas: Record<string, unknown> };
}

/** `METHOD /path/{}/...` for every `get|put|post|patch|delete: "..."` in the protos. */
export function protoBindings(): string[] {
  const files = readdirSync(PROTO_ROOT, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.proto'));
  const found: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(PROTO_ROOT, file), 'utf8');
    for (const m of text.matchAll(/\b(get|put|post|patch|delete)\s*:\s*"([^"]+)"/g)) found.push(`${m[1]!.toUpperCase()} ${normalize(m[2]!)}`);
  }
  return found.sort();
}

/** `METHOD /path/{}/...` for every operation of the document. */
export function documentBindings(doc: OpenApiDoc): string[] {
  return Object.entries(doc.paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${normalize(path)}`))
    .sort();
}

/** Path variables of either spelling (`{id}`, `{a.b}`, `{a_b}`) become `{}`. */
export function normalize(template: string): string {
  return template.replace(/\{[^}]*\}/g, '{}');
}

/** The template with every variable replaced by `value`. */
export function fill(template: string, value: string): string {
  return template.replace(/\{[^}]*\}/g, value);
}

export function matches(template: string, path: string): boolean {
  const t = template.split('/');
  const p = path.split('/');
  return t.length === p.length && t.every((segment, i) => segment.startsWith('{') || segment === p[i]);
}

/** Validates JSON values against `#/components/schemas/<name>` of the document. */
export function createSchemaValidator(doc: OpenApiDoc) {
  // OpenAPI's `format` values (int64, byte, ...) are annotations here; types and patterns are checked.
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: 'https://tessera.test/openapi.json', components: doc.components });
  return (schema: unknown, value: unknown): string[] => {
    const validate = ajv.compile({ $id: `https://tessera.test/check-${Math.random()}`, ...rebase(schema) });
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
  };
}

/** A schema fragment of the document, with its `#/...` refs pointing into the document. */
function rebase(schema: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"https://tessera.test/openapi.json#/components/')) as Record<string, unknown>;
}
