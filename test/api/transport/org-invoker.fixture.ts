/**
 * An in-memory PlatformOrganizations behind the RpcInvoker port, recording every call, so the
 * transports can be tested without the actor system. Organization name "boom" makes the
 * invoker throw a plain Error whose message must never reach a client.
 */
import { create, isMessage, type Message } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { alreadyExists, AppError, notFound } from '../../../actors/index.js';
import type { CallMeta, RpcInvoker, RpcResult } from '../../../src/api/rpc.js';
import { OwnerType } from '../../../src/gen/platform/object/v3alpha/object_pb.js';
import { DetailsSchema, State, type Details } from '../../../src/gen/platform/resources/object/v3alpha/object_pb.js';
import {
  CreateOrganizationRequestSchema,
  CreateOrganizationResponseSchema,
  GetOrganizationRequestSchema,
  GetOrganizationResponseSchema,
  PatchOrganizationRequestSchema,
  PatchOrganizationResponseSchema,
  SearchOrganizationsRequestSchema,
  SearchOrganizationsResponseSchema,
} from '../../../src/gen/platform/resources/org/v3alpha/org_service_pb.js';

export const SECRET_MESSAGE = 'db password hunter2 at /var/lib/secret';
export const CHANGE_MS = Date.UTC(2024, 5, 20, 8, 15, 2, 417);

export interface RecordedCall {
  readonly method: string;
  readonly request: Message;
  readonly meta: CallMeta;
}

export interface OrgFixture {
  readonly invoke: RpcInvoker;
  readonly calls: RecordedCall[];
  lastRequest(): Message;
}

interface StoredOrg {
  name: string;
  sequence: bigint;
}

export function createOrgFixture(): OrgFixture {
  const calls: RecordedCall[] = [];
  const orgs = new Map<string, StoredOrg>([['42', { name: 'Existing', sequence: 7n }]]);
  let nextId = 100;

  const invoke: RpcInvoker = async (method, request, meta) => {
    calls.push({ method: method.name, request, meta });
    if (isMessage(request, CreateOrganizationRequestSchema)) {
      const name = request.organization?.name ?? '';
      if (name === 'boom') throw new Error(SECRET_MESSAGE);
      if (name === 'Taken') throw alreadyExists('org.name_taken', 'Organization name is taken');
      const id = String(nextId++);
      orgs.set(id, { name, sequence: 1n });
      return created(create(CreateOrganizationResponseSchema, { details: details(id, 1n) }));
    }
    if (isMessage(request, GetOrganizationRequestSchema)) {
      const org = found(orgs, request.id);
      const organization = { details: details(request.id, org.sequence), organization: { name: org.name }, state: State.EFFECTIVE_STATE_ACTIVE };
      return ok(create(GetOrganizationResponseSchema, { organization }));
    }
    if (isMessage(request, PatchOrganizationRequestSchema)) {
      const org = found(orgs, request.id);
      if (request.organization?.name !== undefined) org.name = request.organization.name;
      org.sequence += 1n;
      return ok(create(PatchOrganizationResponseSchema, { details: details(request.id, org.sequence) }));
    }
    if (isMessage(request, SearchOrganizationsRequestSchema)) {
      const listDetails = { totalResult: BigInt(request.filters.length), appliedLimit: request.query?.limit || 100, endOfList: true };
      return ok(create(SearchOrganizationsResponseSchema, { details: listDetails, sortingColumn: request.sortingColumn }));
    }
    throw new AppError('unimplemented', 'rpc.unimplemented', 'not implemented in the fixture');
  };

  return {
    invoke,
    calls,
    lastRequest: () => {
      const last = calls[calls.length - 1];
      if (last === undefined) throw new Error('no call recorded');
      return last.request;
    },
  };
}

function found(orgs: Map<string, StoredOrg>, id: string): StoredOrg {
  const org = orgs.get(id);
  if (org === undefined) throw notFound('org.not_found', 'Organization not found');
  return org;
}

function details(id: string, sequence: bigint): Details {
  const resourceOwner = { type: OwnerType.INSTANCE, id: '1' };
  return create(DetailsSchema, { id, sequence, changeDate: timestampFromMs(CHANGE_MS), resourceOwner });
}

function created(message: Message): RpcResult {
  return { message, status: 201 };
}

function ok(message: Message): RpcResult {
  return { message, status: 200 };
}
