/**
 * Every service this node serves on all transports (JSON/HTTP, Connect, gRPC-web, gRPC). Importing
 * this module loads their generated descriptors and @bufbuild/protobuf: only the API's transports
 * do, on their first call (src/api/transport/lazy-api.ts, #13).
 */
import type { DescService } from '@bufbuild/protobuf';
import { PlatformOrganizations } from '../gen/platform/resources/org/v3alpha/org_service_pb.js';
import { PlatformProjects } from '../gen/platform/resources/project/v3alpha/project_service_pb.js';
import { PlatformGrants } from '../gen/platform/resources/grant/v3alpha/grant_service_pb.js';
import { PlatformApps } from '../gen/platform/resources/app/v3alpha/app_service_pb.js';
import { PlatformDomains } from '../gen/platform/resources/domain/v3alpha/domain_service_pb.js';
import { PlatformMemberships } from '../gen/platform/resources/membership/v3alpha/membership_service_pb.js';
import { PlatformInstances } from '../gen/platform/resources/instance/v3alpha/instance_service_pb.js';
import { PlatformFeatures } from '../gen/platform/settings/feature/v3alpha/feature_service_pb.js';
import { PlatformUsers } from '../gen/platform/resources/user/v3alpha/user_service_pb.js';
import { PlatformUserSchemas } from '../gen/platform/resources/userschema/v3alpha/user_schema_service_pb.js';
import { PlatformUserSettings } from '../gen/platform/settings/user/v3alpha/user_settings_service_pb.js';
import { PlatformLoginSettings } from '../gen/platform/settings/login/v3alpha/login_settings_service_pb.js';
import { PlatformRateLimitSettings } from '../gen/platform/settings/rate_limit/v3alpha/rate_limit_service_pb.js';
import { PlatformSessions } from '../gen/platform/resources/session/v3alpha/session_service_pb.js';
import { PlatformWebKeys } from '../gen/platform/resources/webkey/v3alpha/webkey_service_pb.js';
import { PlatformEvents } from '../gen/platform/resources/event/v3alpha/event_service_pb.js';
import { PlatformActions } from '../gen/platform/resources/action/v3alpha/action_service_pb.js';
import { PlatformSMTPProviders } from '../gen/platform/resources/smtp/v3alpha/smtp_service_pb.js';
import { PlatformSMSProviders } from '../gen/platform/resources/sms/v3alpha/sms_service_pb.js';
import { PlatformIdentityProviders } from '../gen/platform/resources/idp/v3alpha/idp_service_pb.js';
import { PlatformLanguageSettings } from '../gen/platform/settings/language/v3alpha/language_service_pb.js';
import { PlatformTextSettings } from '../gen/platform/settings/text/v3alpha/text_service_pb.js';
import { PlatformBrandingSettings } from '../gen/platform/settings/branding/v3alpha/branding_service_pb.js';

export const SERVICES: readonly DescService[] = [PlatformOrganizations, PlatformProjects, PlatformGrants, PlatformApps, PlatformActions, PlatformWebKeys, PlatformDomains, PlatformMemberships, PlatformInstances, PlatformFeatures, PlatformUsers, PlatformUserSchemas, PlatformUserSettings, PlatformLoginSettings, PlatformRateLimitSettings, PlatformSessions, PlatformIdentityProviders, PlatformLanguageSettings, PlatformTextSettings, PlatformBrandingSettings, PlatformEvents, PlatformSMTPProviders, PlatformSMSProviders];
