/**
 * What the SMTP and SMS provider services share: reading a provider, the instance's active
 * provider, the state filter, and the outbound policy check of a configured host.
 */
import { timestampFromMs, type Timestamp } from '@bufbuild/protobuf/wkt';
import { type AggregateRecord, idTerm, notFound, type ProviderDeliveryState, type ProviderFamily, validationFailed } from '../../../actors/index.js';
import { refusedAddress } from '../../delivery/outbound-host.js';
import { outboundPolicyOf } from '../../delivery/policy.js';
import type { CallContext } from '../call-context.js';
import type { Condition } from './search-executor.js';

export async function readProvider<S>(call: CallContext, family: ProviderFamily<S>, id: string): Promise<AggregateRecord<S>> {
  const record = await call.services.actors.readRecord(call.instance.id, family.kind, id);
  if (record === undefined) throw notFound(family.notFoundCode, 'provider not found');
  return record;
}

/** The id of the instance's active provider of the family, '' when none. */
export async function activeProviderId<S>(call: CallContext, family: ProviderFamily<S>): Promise<string> {
  const record = await call.services.actors.readRecord(call.instance.id, family.activation, call.instance.id);
  return record?.state.activeId ?? '';
}

/** A state filter (ACTIVE = 1, INACTIVE = 2) as an executor condition. */
export function stateCondition(state: number, activeId: string): Condition {
  if (state === 1) return { ids: activeId === '' ? [] : [activeId] };
  const active = activeId === '' ? undefined : idTerm(activeId);
  return { index: 'id', test: (term) => term !== active };
}

/** 400 `outbound.address_refused` naming `field` when `host` is not allowed by the node's policy. */
export async function requireAllowedHost(call: CallContext, host: string, field: string): Promise<void> {
  const refused = await refusedAddress(host, outboundPolicyOf(call.services.config));
  if (refused === undefined) return;
  throw validationFailed(
    [{ field, description: `resolves to the non-public address ${refused}; only public addresses are allowed (TESSERA_OUTBOUND_ALLOW_PRIVATE_NETWORKS is off)` }],
    'outbound.address_refused',
  );
}

/** The provider's last delivery error (outbox), for the read shape; nothing when none stands. */
export function lastErrorOf(state: object): { lastError?: { message: string; date: Timestamp } } {
  const last = (state as ProviderDeliveryState).lastError;
  return last === undefined ? {} : { lastError: { message: last.error, date: timestampFromMs(last.at) } };
}
