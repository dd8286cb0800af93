/** Wire enum values ↔ domain names of the application configuration, one table per enum. */
import type { AccessTokenType as DomainAccessTokenType, ApiAuthMethod, OidcAppType as DomainAppType, OidcAuthMethod, OidcGrantType as DomainGrantType, OidcResponseType as DomainResponseType } from '../../../../actors/index.js';
import {
  AccessTokenType,
  ApiAuthMethodType,
  OidcAppType,
  OidcAuthMethodType,
  OidcGrantType,
  OidcResponseType,
} from '../../../gen/platform/resources/app/v3alpha/app_service_pb.js';

/** A two-way mapping between the defined (non-zero) values of a wire enum and domain names. */
export interface EnumMapping<W extends number, D extends string> {
  toDomain(value: number): D | undefined;
  toWire(value: D): W;
}

function createEnumMapping<W extends number, D extends string>(table: Readonly<Record<D, W>>): EnumMapping<W, D> {
  const reverse = new Map<number, D>(Object.entries(table).map(([domain, wire]) => [wire as W, domain as D]));
  return { toDomain: (value) => reverse.get(value), toWire: (value) => table[value] };
}

export const appTypes = createEnumMapping<OidcAppType, DomainAppType>({
  web: OidcAppType.WEB,
  user_agent: OidcAppType.USER_AGENT,
  native: OidcAppType.NATIVE,
});

export const responseTypes = createEnumMapping<OidcResponseType, DomainResponseType>({
  code: OidcResponseType.CODE,
  id_token: OidcResponseType.ID_TOKEN,
  id_token_token: OidcResponseType.ID_TOKEN_TOKEN,
});

export const grantTypes = createEnumMapping<OidcGrantType, DomainGrantType>({
  authorization_code: OidcGrantType.AUTHORIZATION_CODE,
  implicit: OidcGrantType.IMPLICIT,
  refresh_token: OidcGrantType.REFRESH_TOKEN,
  device_code: OidcGrantType.DEVICE_CODE,
  token_exchange: OidcGrantType.TOKEN_EXCHANGE,
});

export const oidcAuthMethods = createEnumMapping<OidcAuthMethodType, OidcAuthMethod>({
  basic: OidcAuthMethodType.BASIC,
  post: OidcAuthMethodType.POST,
  none: OidcAuthMethodType.NONE,
  private_key_jwt: OidcAuthMethodType.PRIVATE_KEY_JWT,
});

export const apiAuthMethods = createEnumMapping<ApiAuthMethodType, ApiAuthMethod>({
  basic: ApiAuthMethodType.BASIC,
  private_key_jwt: ApiAuthMethodType.PRIVATE_KEY_JWT,
});

export const accessTokenTypes = createEnumMapping<AccessTokenType, DomainAccessTokenType>({
  bearer: AccessTokenType.BEARER,
  jwt: AccessTokenType.JWT,
});
