/**
 * Is a document a valid JSON Schema? Checked against the meta-schema its `$schema` names:
 * draft-07 (also when absent), 2019-09 or 2020-12. Any other `$schema` is refused.
 * `strict: false`: unknown keywords are allowed, as JSON Schema itself allows them.
 * ajv is loaded with the first schema checked (creating or changing a user schema), not at
 * start (#13).
 */
import type { Ajv } from 'ajv';

type Validator = Pick<Ajv, 'validateSchema' | 'errorsText' | 'errors'>;

const factories: Readonly<Record<string, () => Promise<Validator>>> = {
  'http://json-schema.org/draft-07/schema': async () => new (await import('ajv')).Ajv({ strict: false }),
  'https://json-schema.org/draft/2019-09/schema': async () => new (await import('ajv/dist/2019.js')).Ajv2019({ strict: false }),
  'https://json-schema.org/draft/2020-12/schema': async () => new (await import('ajv/dist/2020.js')).Ajv2020({ strict: false }),
};
const validators = new Map<string, Validator>();

export interface SchemaCheck {
  readonly valid: boolean;
  /** For logs: what is wrong (never sent to clients). */
  readonly problem: string;
}

export async function checkJsonSchema(document: Readonly<Record<string, unknown>>): Promise<SchemaCheck> {
  const declared = document['$schema'];
  const key = typeof declared === 'string' ? declared.replace(/#$/, '').replace(/^http:\/\/json-schema\.org\/draft\/20/, 'https://json-schema.org/draft/20') : 'http://json-schema.org/draft-07/schema';
  const factory = factories[key];
  if (factory === undefined) return { valid: false, problem: 'unsupported $schema' };
  let validator = validators.get(key);
  if (validator === undefined) validators.set(key, (validator = await factory()));
  try {
    if (validator.validateSchema(document) === true) return { valid: true, problem: '' };
    return { valid: false, problem: validator.errorsText(validator.errors) };
  } catch (error) {
    return { valid: false, problem: error instanceof Error ? error.message : 'invalid' };
  }
}
