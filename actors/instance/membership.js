export function membershipId(contextType, contextId, userId) {
    return `${contextType}:${contextId}:${userId}`;
}
const eventPrefix = {
    system: 'system.member',
    instance: 'instance.member',
    org: 'org.member',
    project: 'project.member',
};
export function membershipEventType(context, action) {
    return `${eventPrefix[context]}.${action}`;
}
export const membershipKind = {
    type: 'membership',
    table: 'memberships',
    evolve(state, event) {
        const payload = event.payload;
        if (event.type.endsWith('.member.removed'))
            return undefined;
        if (event.type.endsWith('.member.added')) {
            return { contextType: payload.contextType, contextId: payload.contextId, userId: payload.userId, roles: payload.roles };
        }
        if (event.type.endsWith('.member.changed'))
            return state && { ...state, roles: payload.roles };
        return state;
    },
};
