/**
 * The issuer of a request lives in src/http/issuer.ts, where the resource APIs reach it too (the
 * passkey relying party's origin) without importing src/oidc; the OIDC endpoints keep this path.
 */
export { issuerFor } from '../../http/issuer.js';
