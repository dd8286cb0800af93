/**
 * The proto3 JSON mapping as JSON Schema: what protobuf-es's toJson writes validates against
 * the schema generated for its message, and the mapping's rules (64-bit as strings, enums
 * as names, well-known types, maps, oneofs) are what the schema says.
 */
import { create, toJson, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { messageSchema, type ComponentSchemas } from '../../../src/api/openapi/json-schema.js';
import { RequestContextSchema } from '../../../src/gen/platform/object/v3alpha/object_pb.js';
import { DetailsSchema } from '../../../src/gen/platform/resources/object/v3alpha/object_pb.js';
import { SetFeaturesRequestSchema } from '../../../src/gen/platform/settings/feature/v3alpha/feature_service_pb.js';
import { ResolvedDurationSchema } from '../../../src/gen/platform/settings/object/v3alpha/object_pb.js';
import { GetOrganizationResponseSchema } from '../../../src/gen/platform/resources/org/v3alpha/org_service_pb.js';

function schemasOf(desc: DescMessage): { components: ComponentSchemas; check: (value: unknown) => boolean } {
  const components: ComponentSchemas = new Map();
  const root = messageSchema(desc, components);
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema({ $id: 'https://t/doc', components: { schemas: Object.fromEntries(components) } });
  const validate = ajv.compile({ $id: 'https://t/root', ...JSON.parse(JSON.stringify(root).replaceAll('"#/', '"https://t/doc#/')) });
  return { components, check: (value) => validate(value) };
}

function jsonOf<D extends DescMessage>(desc: D, init: MessageInitShape<D>): unknown {
  return toJson(desc, create(desc, init));
}

describe('proto3 JSON schemas', () => {
  it('describes 64-bit integers as decimal strings and timestamps as RFC 3339 strings', () => {
    const { components, check } = schemasOf(DetailsSchema);
    const details = components.get(DetailsSchema.typeName) as { properties: Record<string, unknown> };
    expect(details.properties.sequence).toEqual({ type: 'string', format: 'uint64', pattern: '^[0-9]+$' });
    expect(details.properties.changeDate).toMatchObject({ type: 'string', format: 'date-time' });
    const json = jsonOf(DetailsSchema, { id: '1', sequence: 12345678901234567890n, changeDate: { seconds: 1_700_000_000n, nanos: 5 }, resourceOwner: { type: 3, id: '2' } });
    expect(json).toMatchObject({ sequence: '12345678901234567890', resourceOwner: { type: 'OWNER_TYPE_ORG' } });
    expect(check(json)).toBe(true);
    expect(check({ ...(json as object), sequence: 5 })).toBe(false);
    expect(check({ ...(json as object), resourceOwner: { type: 3 } })).toBe(false);
  });

  it('lets at most one member of a oneof be present', () => {
    const { check } = schemasOf(RequestContextSchema);
    expect(check({})).toBe(true);
    expect(check(jsonOf(RequestContextSchema, { context: { case: 'orgId', value: '7' } }))).toBe(true);
    expect(check({ orgId: '7', instanceId: '8' })).toBe(false);
  });

  it('describes maps as objects and durations as seconds strings', () => {
    const features = schemasOf(SetFeaturesRequestSchema);
    expect(features.check(jsonOf(SetFeaturesRequestSchema, { features: { login_v2: true } }))).toBe(true);
    expect(features.check({ features: { login_v2: 'yes' } })).toBe(false);
    const duration = schemasOf(ResolvedDurationSchema);
    const json = jsonOf(ResolvedDurationSchema, { value: { seconds: 90n, nanos: 500_000_000 } });
    expect(json).toMatchObject({ value: '90.500s' });
    expect(duration.check(json)).toBe(true);
    expect(duration.check({ value: 90 })).toBe(false);
  });

  it('registers every nested message and enum once, by full name', () => {
    const { components, check } = schemasOf(GetOrganizationResponseSchema);
    expect([...components.keys()].sort()).toEqual(
      [
        'platform.object.v3alpha.Owner',
        'platform.object.v3alpha.OwnerType',
        'platform.resources.object.v3alpha.Details',
        'platform.resources.object.v3alpha.State',
        'platform.resources.org.v3alpha.GetOrganization',
        'platform.resources.org.v3alpha.GetOrganizationResponse',
        'platform.resources.org.v3alpha.Organization',
      ].sort(),
    );
    expect(check(jsonOf(GetOrganizationResponseSchema, { organization: { organization: { name: 'A' }, state: 1, isInstanceDefault: true } }))).toBe(true);
  });
});
