/**
 * A per-instance change counter for the settings the login UI renders (texts, branding). The
 * set handlers bump it after a successful write; the login UI's appearance cache compares it,
 * so this node's writes show at once while other nodes' writes show after the cache's short
 * lifetime. Process-wide on purpose: one node is one process.
 */
const generations = new Map<string, number>();

/** Records that an instance's (or one of its organizations') login settings changed. */
export function noteSettingsChanged(instanceId: string): void {
  generations.set(instanceId, (generations.get(instanceId) ?? 0) + 1);
}

/** The instance's change count on this node (0 before any change). */
export function settingsGeneration(instanceId: string): number {
  return generations.get(instanceId) ?? 0;
}
