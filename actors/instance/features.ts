/**
 * The feature flags this version knows (issue 3 "Feature flags"). A flag is a boolean of the
 * instance settings; a flag never set is off. Other modules gate services on these names.
 */
export const KNOWN_FEATURES = ['multitenancy_resources_api', 'multitenancy_settings', 'token_exchange', 'impersonation'] as const;

export type FeatureName = (typeof KNOWN_FEATURES)[number];

export function isKnownFeature(name: string): name is FeatureName {
  return (KNOWN_FEATURES as readonly string[]).includes(name);
}
