export const INSTANCE_DOMAIN_SCOPE = 'instance.domain';
export const instanceKind = {
    type: 'instance',
    table: 'instances',
    evolve(state, event) {
        const e = event;
        switch (e.type) {
            case 'instance.added':
                return { name: e.payload.name, domains: [e.payload.domain], state: 'active' };
            case 'instance.changed':
                return state && { ...state, name: e.payload.name };
            case 'instance.domain.added':
                return state && { ...state, domains: [...state.domains, e.payload.domain] };
            case 'instance.domain.removed':
                return state && { ...state, domains: state.domains.filter((d) => d !== e.payload.domain) };
            case 'instance.removed':
                return undefined;
            default:
                return state;
        }
    },
};
