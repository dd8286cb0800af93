/** Helpers of the discovery and web-key suites: the key set and the key list of a node. */
import { api, type TestNode } from './harness.js';

export interface PublishedJwk {
  readonly kid: string;
  readonly kty: string;
  readonly alg: string;
  readonly use: string;
  readonly [member: string]: string;
}

export interface ListedWebKey {
  readonly id: string;
  readonly state: string;
  readonly algorithm: string;
  readonly publicKey: Record<string, string>;
  readonly details: { readonly id: string; readonly sequence: string };
  readonly creationDate?: string;
  readonly activationDate?: string;
  readonly retirementDate?: string;
  readonly removalDate?: string;
}

/** GET /oauth/v2/keys with the node's own Host. */
export async function fetchJwks(node: TestNode, headers: Record<string, string> = {}) {
  const response = await api(node, '')('GET', '/oauth/v2/keys', undefined, headers);
  return { ...response, keys: (response.body?.keys ?? []) as PublishedJwk[] };
}

/** ListWebKeys with the admin token: the keys by state. */
export async function listWebKeys(node: TestNode, token = node.adminToken) {
  const response = await api(node, token)('GET', '/resources/v3alpha/web_keys');
  const keys = (response.body?.webKeys ?? []) as ListedWebKey[];
  const kidsIn = (state: string) => keys.filter((k) => k.state === `WEB_KEY_STATE_${state}`).map((k) => k.id);
  return { status: response.status, keys, active: kidsIn('ACTIVE'), next: kidsIn('NEXT'), retired: kidsIn('RETIRED') };
}
