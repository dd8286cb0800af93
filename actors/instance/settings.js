export const instanceSettingsKind = {
    type: 'instance',
    table: 'instance',
    evolve(state, event) {
        const current = state ?? { defaultOrgId: '', features: {} };
        const e = event;
        switch (e.type) {
            case 'instance.default.org.set':
                return { ...current, defaultOrgId: e.payload.orgId };
            case 'instance.feature.set':
                return { ...current, features: { ...current.features, [e.payload.name]: e.payload.value } };
            default:
                return state;
        }
    },
};
