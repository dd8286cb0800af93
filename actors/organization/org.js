export const ORG_NAME_SCOPE = 'org.name';
export const ORG_DOMAIN_SCOPE = 'org.domain';
export const orgKind = {
    type: 'org',
    table: 'orgs',
    evolve(state, event) {
        const e = event;
        switch (e.type) {
            case 'org.added':
                return { name: e.payload.name, primaryDomain: e.payload.primaryDomain, state: 'active' };
            case 'org.changed':
                return state && { ...state, name: e.payload.name };
            case 'org.removed':
                return undefined;
            default:
                return state;
        }
    },
};
/** Claim value of an org name: names are unique regardless of case. */
export function orgNameKey(name) {
    return name.trim().toLowerCase();
}
/** The generated primary domain of a new organization: `<slug of name>.<instance domain>`. */
export function generatedOrgDomain(name, instanceDomain) {
    const slug = name
        .normalize('NFKD')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 60);
    return `${slug === '' ? 'org' : slug}.${instanceDomain}`;
}
