export const systemOwner = { type: 'system', id: '' };
export function instanceOwner(instanceId) {
    return { type: 'instance', id: instanceId };
}
export function orgOwner(orgId) {
    return { type: 'org', id: orgId };
}
export function detailsOf(record) {
    return { id: record.id, sequence: record.meta.sequence, changeDate: record.meta.changedAt, resourceOwner: record.meta.owner };
}
/** Details after a mutation: of the last event written, or of the current row for a no-op. */
export function detailsAfter(outcome, fallback) {
    const last = outcome.events[outcome.events.length - 1];
    if (last !== undefined) {
        return { id: fallback.id, sequence: last.position, changeDate: last.createdAt, resourceOwner: last.owner };
    }
    if (fallback.record !== undefined)
        return detailsOf(fallback.record);
    return { id: fallback.id, sequence: 0, changeDate: 0, resourceOwner: fallback.owner };
}
