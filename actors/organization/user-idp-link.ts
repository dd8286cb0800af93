/**
 * Links between a human user and external identities (seed 000 "Identity provider (IDP)"):
 * the IDP, the external user id (`sub` at the provider) and the external username. Each link
 * is claimed under `user.idp_link` as `${idpId}:${externalUserId}`, so "which user has this
 * external identity" is one index read at login, and one external identity links one user.
 */
import type { UniqueClaim, UniqueRelease } from '../kernel/ports.js';

export const IDP_LINK_SCOPE = 'user.idp_link';

/** Payload of `user.idp.link.added` and an entry of `HumanUser.idpLinks`. */
export interface IdpLink {
  readonly idpId: string;
  readonly externalUserId: string;
  readonly externalUsername: string;
}

/** Claim value of an external identity. */
export function idpLinkKey(idpId: string, externalUserId: string): string {
  return `${idpId}:${externalUserId}`;
}

export function idpLinkClaim(link: IdpLink, userId: string): UniqueClaim {
  return { scope: IDP_LINK_SCOPE, value: idpLinkKey(link.idpId, link.externalUserId), holder: userId };
}

export function idpLinkReleases(links: readonly IdpLink[]): UniqueRelease[] {
  return links.map((l) => ({ scope: IDP_LINK_SCOPE, value: idpLinkKey(l.idpId, l.externalUserId) }));
}
