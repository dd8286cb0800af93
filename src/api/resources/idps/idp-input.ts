/**
 * Shape checks of IDP creates and patches at the edge (seed 000 "Identity provider";
 * reference facts §4.4): name 1..200, clientId 1..200, clientSecret 1..200 (required on
 * create), scopes ≤ 20 of 1..100 characters, issuer 1..200 and an http(s) URL (self-hosted).
 */
import {
  type AutoLinking,
  type DefiningPolicy,
  type FieldViolation,
  type IdpOptions,
  type IdpType,
  type StatePolicy as DomainPolicy,
  validationFailed,
} from '../../../../actors/index.js';
import { AutoLinkingOption, type IDP, type Options, type PatchIDP } from '../../../gen/platform/resources/idp/v3alpha/idp_service_pb.js';
import { StatePolicy } from '../../../gen/platform/resources/object/v3alpha/object_pb.js';

const MAX = 200;
const MAX_SCOPES = 20;

/** The config fields of both forge variants (issuer only on the self-hosted one). */
export interface WireConfig {
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly scopes: readonly string[];
  readonly issuer?: string;
}

export interface IdpCreateInput {
  readonly name: string;
  readonly policy: DefiningPolicy;
  readonly options: IdpOptions;
  readonly config: { readonly clientId: string; readonly clientSecret: string; readonly scopes: readonly string[]; readonly issuer: string };
}

export interface IdpPatchInput {
  readonly name?: string;
  readonly policy?: DomainPolicy;
  readonly options?: IdpOptions;
  readonly config?: { clientId?: string; clientSecret?: string; scopes?: readonly string[]; issuer?: string };
}

export function parseCreateInput(idp: IDP | undefined, config: WireConfig | undefined, idpType: IdpType): IdpCreateInput {
  const v: FieldViolation[] = [];
  if (idp === undefined) v.push({ field: 'idp.idp', description: 'required' });
  if (config === undefined) v.push({ field: 'idp.config', description: 'required' });
  if (idp === undefined || config === undefined) throw validationFailed(v);
  const name = checkText(idp.name, 'idp.idp.name', v);
  const policy = checkPolicy(idp.statePolicy, 'idp.idp.statePolicy', v);
  const options = checkOptions(idp.options, 'idp.idp.options', v);
  const clientId = checkText(config.clientId ?? '', 'idp.config.clientId', v);
  const clientSecret = checkText(config.clientSecret ?? '', 'idp.config.clientSecret', v);
  const scopes = checkScopes(config.scopes, v);
  const issuer = idpType === 'forge_self_hosted' ? checkIssuer(config.issuer ?? '', v) : '';
  if (v.length > 0) throw validationFailed(v);
  return { name, policy: policy === 'deactivate' ? 'deactivate' : 'activate', options, config: { clientId, clientSecret, scopes, issuer } };
}

export function parsePatchInput(idp: PatchIDP | undefined, config: WireConfig | undefined, idpType: IdpType): IdpPatchInput {
  const v: FieldViolation[] = [];
  const name = idp?.name === undefined ? undefined : checkText(idp.name, 'idp.idp.name', v);
  const policy = idp?.statePolicy === undefined ? undefined : checkPolicy(idp.statePolicy, 'idp.idp.statePolicy', v);
  const options = idp?.options === undefined ? undefined : checkOptions(idp.options, 'idp.idp.options', v);
  let patchConfig: IdpPatchInput['config'];
  if (config !== undefined) {
    patchConfig = {};
    if (config.clientId !== undefined) patchConfig.clientId = checkText(config.clientId, 'idp.config.clientId', v);
    if (config.clientSecret !== undefined && config.clientSecret !== '') patchConfig.clientSecret = checkText(config.clientSecret, 'idp.config.clientSecret', v);
    if (config.scopes.length > 0) patchConfig.scopes = checkScopes(config.scopes, v);
    if (idpType === 'forge_self_hosted' && config.issuer !== undefined) patchConfig.issuer = checkIssuer(config.issuer, v);
  }
  if (v.length > 0) throw validationFailed(v);
  return {
    ...(name === undefined ? {} : { name }),
    ...(policy === undefined ? {} : { policy }),
    ...(options === undefined ? {} : { options }),
    ...(patchConfig === undefined ? {} : { config: patchConfig }),
  };
}

/** True when a patch touches anything besides the state policy (refused from a child context). */
export function touchesConfiguration(input: IdpPatchInput): boolean {
  return input.name !== undefined || input.options !== undefined || (input.config !== undefined && Object.keys(input.config).length > 0);
}

function checkText(raw: string, field: string, v: FieldViolation[]): string {
  const value = raw.trim();
  if (value === '') v.push({ field, description: 'required' });
  else if (value.length > MAX) v.push({ field, description: `must be at most ${MAX} characters` });
  return value;
}

function checkPolicy(raw: StatePolicy, field: string, v: FieldViolation[]): DomainPolicy {
  switch (raw) {
    case StatePolicy.ACTIVATE:
      return 'activate';
    case StatePolicy.DEACTIVATE:
      return 'deactivate';
    case StatePolicy.INHERIT:
    case StatePolicy.UNSPECIFIED:
      return 'inherit';
    default:
      v.push({ field, description: 'must be a defined value' });
      return 'inherit';
  }
}

const LINKING: Record<number, AutoLinking> = {
  [AutoLinkingOption.UNSPECIFIED]: 'none',
  [AutoLinkingOption.USERNAME]: 'username',
  [AutoLinkingOption.EMAIL]: 'email',
};

function checkOptions(raw: Options | undefined, field: string, v: FieldViolation[]): IdpOptions {
  const autoLinking = LINKING[raw?.autoLinking ?? AutoLinkingOption.UNSPECIFIED];
  if (autoLinking === undefined) v.push({ field: `${field}.autoLinking`, description: 'must be a defined value' });
  return {
    isManualLinkingAllowed: raw?.isManualLinkingAllowed ?? false,
    isManualCreationAllowed: raw?.isManualCreationAllowed ?? false,
    isAutoCreation: raw?.isAutoCreation ?? false,
    isAutoUpdate: raw?.isAutoUpdate ?? false,
    autoLinking: autoLinking ?? 'none',
  };
}

function checkScopes(scopes: readonly string[], v: FieldViolation[]): string[] {
  if (scopes.length > MAX_SCOPES) v.push({ field: 'idp.config.scopes', description: `at most ${MAX_SCOPES} scopes` });
  scopes.forEach((scope, i) => {
    if (!/^[\x21\x23-\x5b\x5d-\x7e]{1,100}$/.test(scope)) v.push({ field: `idp.config.scopes[${i}]`, description: 'must be a scope token of 1..100 characters' });
  });
  return [...scopes];
}

function checkIssuer(raw: string, v: FieldViolation[]): string {
  const issuer = checkText(raw, 'idp.config.issuer', v);
  if (issuer === '' || issuer.length > MAX) return issuer;
  try {
    const url = new URL(issuer);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('scheme');
  } catch {
    v.push({ field: 'idp.config.issuer', description: 'must be an http(s) URL' });
  }
  return issuer.replace(/\/+$/, '');
}
