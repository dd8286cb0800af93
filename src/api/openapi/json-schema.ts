/**
 * JSON Schema (2020-12, as OpenAPI 3.1 embeds it) for messages in their proto3 JSON form
 * (protobuf.dev "ProtoJSON Format"): lowerCamelCase names, enums as value names, 64-bit
 * integers as decimal strings, bytes as base64, well-known types in their own JSON forms
 * (Timestamp RFC 3339, Duration "1.5s", Struct any object), members of a oneof at most one.
 * Every message becomes one component, referenced by its full type name.
 */
import { ScalarType, type DescEnum, type DescField, type DescMessage } from '@bufbuild/protobuf';

export type JsonSchema = Readonly<Record<string, unknown>>;

/** Where components are collected: type name → schema, filled as messages are first met. */
export type ComponentSchemas = Map<string, JsonSchema>;

const int64Pattern = '^-?[0-9]+$';
const uint64Pattern = '^[0-9]+$';

const scalarSchemas = {
  [ScalarType.DOUBLE]: { type: 'number', format: 'double' },
  [ScalarType.FLOAT]: { type: 'number', format: 'float' },
  [ScalarType.INT64]: { type: 'string', format: 'int64', pattern: int64Pattern },
  [ScalarType.UINT64]: { type: 'string', format: 'uint64', pattern: uint64Pattern },
  [ScalarType.INT32]: { type: 'integer', format: 'int32' },
  [ScalarType.FIXED64]: { type: 'string', format: 'uint64', pattern: uint64Pattern },
  [ScalarType.FIXED32]: { type: 'integer', format: 'uint32', minimum: 0 },
  [ScalarType.BOOL]: { type: 'boolean' },
  [ScalarType.STRING]: { type: 'string' },
  [ScalarType.BYTES]: { type: 'string', format: 'byte', contentEncoding: 'base64' },
  [ScalarType.UINT32]: { type: 'integer', format: 'uint32', minimum: 0 },
  [ScalarType.SFIXED32]: { type: 'integer', format: 'int32' },
  [ScalarType.SFIXED64]: { type: 'string', format: 'int64', pattern: int64Pattern },
  [ScalarType.SINT32]: { type: 'integer', format: 'int32' },
  [ScalarType.SINT64]: { type: 'string', format: 'int64', pattern: int64Pattern },
} as const satisfies Record<ScalarType, JsonSchema>;

/** Well-known types whose JSON form is not an object of their fields. */
const wellKnownSchemas: Readonly<Record<string, JsonSchema>> = {
  'google.protobuf.Timestamp': { type: 'string', format: 'date-time', description: 'RFC 3339 date-time in UTC ("Z"), e.g. "2024-05-01T12:00:00Z".' },
  'google.protobuf.Duration': { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]{1,9})?s$', description: 'Seconds with the suffix "s", e.g. "300s" or "1.5s".' },
  'google.protobuf.Struct': { type: 'object', additionalProperties: true },
  'google.protobuf.Value': { description: 'Any JSON value.' },
  'google.protobuf.ListValue': { type: 'array', items: {} },
  'google.protobuf.Empty': { type: 'object' },
  'google.protobuf.FieldMask': { type: 'string', description: 'Comma-separated lowerCamelCase field paths.' },
  'google.protobuf.Any': {
    type: 'object',
    properties: { '@type': { type: 'string', description: 'type.googleapis.com/<full message name>' } },
    required: ['@type'],
    additionalProperties: true,
  },
  'google.protobuf.DoubleValue': scalarSchemas[ScalarType.DOUBLE],
  'google.protobuf.FloatValue': scalarSchemas[ScalarType.FLOAT],
  'google.protobuf.Int64Value': scalarSchemas[ScalarType.INT64],
  'google.protobuf.UInt64Value': scalarSchemas[ScalarType.UINT64],
  'google.protobuf.Int32Value': scalarSchemas[ScalarType.INT32],
  'google.protobuf.UInt32Value': scalarSchemas[ScalarType.UINT32],
  'google.protobuf.BoolValue': scalarSchemas[ScalarType.BOOL],
  'google.protobuf.StringValue': scalarSchemas[ScalarType.STRING],
  'google.protobuf.BytesValue': scalarSchemas[ScalarType.BYTES],
};

/** Well-known types a query parameter can carry (their JSON form is a string or a scalar). */
export function isScalarLikeMessage(message: DescMessage): boolean {
  const schema = wellKnownSchemas[message.typeName];
  return schema !== undefined && typeof schema.type === 'string' && schema.type !== 'object' && schema.type !== 'array';
}

export function scalarSchema(type: ScalarType): JsonSchema {
  return scalarSchemas[type];
}

/** A `$ref` to the enum's component (registering it): the value names are its JSON form. */
export function enumSchema(desc: DescEnum, components: ComponentSchemas): JsonSchema {
  if (!components.has(desc.typeName)) {
    components.set(desc.typeName, { type: 'string', title: desc.typeName, enum: desc.values.map((v) => v.name) });
  }
  return { $ref: `#/components/schemas/${desc.typeName}` };
}

/** A `$ref` to the message's component (registering it), or the well-known type's own schema. */
export function messageSchema(message: DescMessage, components: ComponentSchemas): JsonSchema {
  const known = wellKnownSchemas[message.typeName];
  if (known !== undefined) return known;
  if (!components.has(message.typeName)) {
    components.set(message.typeName, {}); // placeholder first: messages may refer to themselves
    components.set(message.typeName, objectSchema(message, components));
  }
  return { $ref: `#/components/schemas/${message.typeName}` };
}

/** The schema of one field's JSON value. */
export function fieldSchema(field: DescField, components: ComponentSchemas): JsonSchema {
  switch (field.fieldKind) {
    case 'scalar':
      return scalarSchema(field.scalar);
    case 'enum':
      return enumSchema(field.enum, components);
    case 'message':
      return messageSchema(field.message, components);
    case 'list':
      return { type: 'array', items: elementSchema(field, components) };
    case 'map':
      return { type: 'object', propertyNames: mapKeySchema(field.mapKey), additionalProperties: elementSchema(field, components) };
  }
}

/** The schema of a list item or map value: a message, an enum or a scalar. */
function elementSchema(field: DescField & { fieldKind: 'list' | 'map' }, components: ComponentSchemas): JsonSchema {
  if (field.message !== undefined) return messageSchema(field.message, components);
  if (field.enum !== undefined) return enumSchema(field.enum, components);
  return scalarSchema(field.scalar);
}

/** Map keys are JSON object keys: strings, holding the key's decimal or boolean text. */
function mapKeySchema(key: ScalarType): JsonSchema {
  if (key === ScalarType.STRING) return { type: 'string' };
  if (key === ScalarType.BOOL) return { enum: ['true', 'false'] };
  return { type: 'string', pattern: int64Pattern };
}

function objectSchema(message: DescMessage, components: ComponentSchemas): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of message.fields) {
    const schema = fieldSchema(field, components);
    properties[field.jsonName] = field.oneof === undefined ? schema : { ...schema, description: `One of ${field.oneof.name}: at most one of ${field.oneof.fields.map((f) => f.jsonName).join(', ')}.` };
  }
  const oneofs = message.oneofs.map((oneof) => atMostOne(oneof.fields.map((f) => f.jsonName)));
  const schema: Record<string, unknown> = { type: 'object', title: message.typeName, properties };
  if (oneofs.length > 0) schema.allOf = oneofs;
  return schema;
}

/** Exactly one branch holds: one of the names is present, or none is. */
function atMostOne(names: readonly string[]): JsonSchema {
  const present = names.map((name) => ({ required: [name] }));
  return { oneOf: [...present, { not: { anyOf: present } }] };
}
