/** Application reads and read shapes shared by the app operations. */
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { durationFromMs } from '@bufbuild/protobuf/wkt';
import { type AggregateRecord, type AppConfig, type Application, applicationKind, detailsOf, notFound, projectKind } from '../../../../actors/index.js';
import { GetAppSchema, type AppSchema, type GetApp } from '../../../gen/platform/resources/app/v3alpha/app_service_pb.js';
import type { CallContext } from '../../call-context.js';
import { toDetails, toTimestamp } from '../../shared/convert.js';
import { readOwned } from '../../shared/owned.js';
import { accessTokenTypes, apiAuthMethods, appTypes, grantTypes, oidcAuthMethods, responseTypes } from './enums.js';

/**
 * The application with this id, if the caller may use it with `permission`: 404 when absent,
 * when its project or organization was removed, or outside the ctx organization; 403 without
 * the permission in its organization (or through a membership in its project).
 */
export async function requireApp(call: CallContext, id: string, permission: string): Promise<AggregateRecord<Application>> {
  const app = await readOwned(call, applicationKind, id);
  const inScope = app !== undefined && (call.scope.type !== 'org' || app.state.orgId === call.scope.orgId);
  if (!inScope || !(await hasLiveProject(call, app))) throw notFound('app.not_found', 'application not found');
  await call.require(permission, app.state.orgId, app.state.projectId);
  return app;
}

/** True when the app's project still exists in the app's organization. */
export async function hasLiveProject(call: CallContext, app: AggregateRecord<Application>): Promise<boolean> {
  const project = await call.services.actors.readRecord(call.instance.id, projectKind, app.state.projectId);
  return project !== undefined && project.state.orgId === app.state.orgId;
}

export function toGetApp(record: AggregateRecord<Application>): GetApp {
  const app = record.state;
  return create(GetAppSchema, {
    details: toDetails(detailsOf(record)),
    app: { projectId: app.projectId, name: app.name, config: toWireConfig(app.config) },
    clientId: app.clientId,
    hasClientSecret: app.secretDigest !== '',
    keyCount: app.keys.length,
    ...(record.meta.createdAt > 0 ? { creationDate: toTimestamp(record.meta.createdAt) } : {}),
  });
}

function toWireConfig(config: AppConfig): MessageInitShape<typeof AppSchema>['config'] {
  if (config.type === 'api') return { case: 'api', value: { authMethod: apiAuthMethods.toWire(config.api.authMethod) } };
  const { oidc } = config;
  return {
    case: 'oidc',
    value: {
      appType: appTypes.toWire(oidc.appType),
      redirectUris: [...oidc.redirectUris],
      postLogoutRedirectUris: [...oidc.postLogoutRedirectUris],
      responseTypes: oidc.responseTypes.map(responseTypes.toWire),
      grantTypes: oidc.grantTypes.map(grantTypes.toWire),
      authMethod: oidcAuthMethods.toWire(oidc.authMethod),
      accessTokenType: accessTokenTypes.toWire(oidc.accessTokenType),
      idTokenUserinfoAssertion: oidc.idTokenUserinfoAssertion,
      idTokenRoleAssertion: oidc.idTokenRoleAssertion,
      accessTokenRoleAssertion: oidc.accessTokenRoleAssertion,
      clockSkew: durationFromMs(oidc.clockSkewMs),
      devMode: oidc.devMode,
      additionalOrigins: [...oidc.additionalOrigins],
      skipNativeAppSuccessPage: oidc.skipNativeAppSuccessPage,
    },
  };
}
