/** Web keys domain → wire (public information only: the sealed private key never leaves). */
import { create, type JsonObject } from '@bufbuild/protobuf';
import { instanceOwner, type SigningAlgorithm, type WebKey, type WebKeyState } from '../../../../actors/index.js';
import {
  GetWebKeySchema,
  WebKeyAlgorithm,
  WebKeyState as WireWebKeyState,
  type GetWebKey,
} from '../../../gen/platform/resources/webkey/v3alpha/webkey_service_pb.js';
import { toDetails, toTimestamp } from '../../shared/convert.js';

const wireStates = {
  next: WireWebKeyState.NEXT,
  active: WireWebKeyState.ACTIVE,
  retired: WireWebKeyState.RETIRED,
} as const satisfies Record<WebKeyState, WireWebKeyState>;

const wireAlgorithms = {
  RS256: WebKeyAlgorithm.RS256,
  ES256: WebKeyAlgorithm.ES256,
  EdDSA: WebKeyAlgorithm.EDDSA,
} as const satisfies Record<SigningAlgorithm, WebKeyAlgorithm>;

/** Wire algorithm → domain; undefined for UNSPECIFIED (use the configured default). */
export const domainAlgorithms: Readonly<Partial<Record<WebKeyAlgorithm, SigningAlgorithm>>> = {
  [WebKeyAlgorithm.RS256]: 'RS256',
  [WebKeyAlgorithm.ES256]: 'ES256',
  [WebKeyAlgorithm.EDDSA]: 'EdDSA',
};

const STATE_ORDER = { active: 0, next: 1, retired: 2 } as const satisfies Record<WebKeyState, number>;

/** Active first, then next, then retired (newest first). */
export function compareWebKeys(a: WebKey, b: WebKey): number {
  return STATE_ORDER[a.state] - STATE_ORDER[b.state] || b.createdAt - a.createdAt;
}

export function toGetWebKey(key: WebKey, instanceId: string, retireAfterMs: number): GetWebKey {
  const publicKey: JsonObject = { ...key.publicJwk, kid: key.kid, alg: key.algorithm, use: 'sig' };
  return create(GetWebKeySchema, {
    details: toDetails({ id: key.kid, sequence: key.sequence, changeDate: key.changedAt, resourceOwner: instanceOwner(instanceId) }),
    id: key.kid,
    state: wireStates[key.state],
    algorithm: wireAlgorithms[key.algorithm],
    publicKey,
    creationDate: toTimestamp(key.createdAt),
    activationDate: toTimestamp(key.activatedAt ?? 0),
    retirementDate: toTimestamp(key.retiredAt ?? 0),
    removalDate: key.retiredAt === undefined ? undefined : toTimestamp(key.retiredAt + retireAfterMs),
  });
}
