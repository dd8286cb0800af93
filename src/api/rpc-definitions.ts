/**
 * Every RPC definition this node serves (the handlers of src/api/resources and src/api/settings).
 * node.ts imports this module on the first API call or request for /openapi.json, not at start
 * (#13, docs/architecture.md "Memory"): an idle node does not hold ~200 handler modules.
 */
import type { WebKeyService } from '../crypto/web-keys.js';
import type { AnyRpcDefinition } from './invoker.js';
import { organizationRpcs } from './resources/organizations/index.js';
import { projectRpcs } from './resources/projects/index.js';
import { grantRpcs } from './resources/grants/index.js';
import { appRpcs } from './resources/apps/index.js';
import { domainRpcs } from './resources/domains/index.js';
import { eventRpcs } from './resources/events/index.js';
import { membershipRpcs } from './resources/memberships/index.js';
import { instanceRpcs } from './resources/instances/index.js';
import { featureRpcs } from './settings/features/index.js';
import { userRpcs } from './resources/users/index.js';
import { userSchemaRpcs } from './resources/user-schemas/index.js';
import { userSettingsRpcs } from './settings/users/index.js';
import { loginSettingsRpcs } from './settings/login/index.js';
import { rateLimitSettingsRpcs } from './settings/rate-limits/index.js';
import { sessionRpcs } from './resources/sessions/index.js';
import { createWebKeyRpcs } from './resources/web-keys/index.js';
import { actionRpcs } from './resources/actions/index.js';
import { idpRpcs } from './resources/idps/index.js';
import { smtpProviderRpcs } from './resources/smtp-providers/index.js';
import { smsProviderRpcs } from './resources/sms-providers/index.js';
import { languageSettingsRpcs } from './settings/languages/index.js';
import { textSettingsRpcs } from './settings/texts/index.js';
import { brandingSettingsRpcs } from './settings/branding/index.js';

export function apiRpcDefinitions(webKeys: WebKeyService): AnyRpcDefinition[] {
  return [...organizationRpcs, ...projectRpcs, ...grantRpcs, ...appRpcs, ...actionRpcs, ...createWebKeyRpcs(webKeys), ...domainRpcs, ...membershipRpcs, ...instanceRpcs, ...featureRpcs, ...userRpcs, ...userSchemaRpcs, ...userSettingsRpcs, ...loginSettingsRpcs, ...rateLimitSettingsRpcs, ...sessionRpcs, ...idpRpcs, ...languageSettingsRpcs, ...textSettingsRpcs, ...brandingSettingsRpcs, ...eventRpcs, ...smtpProviderRpcs, ...smsProviderRpcs];
}
