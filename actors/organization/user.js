export const USERNAME_SCOPE = 'user.username';
export const PAT_SCOPE = 'user.pat';
export function usernameKey(orgId, username) {
    return `${orgId}:${username.toLowerCase()}`;
}
export const userKind = {
    type: 'user',
    table: 'users',
    evolve(state, event) {
        const e = event;
        switch (e.type) {
            case 'user.machine.added':
                return { ...e.payload, type: 'machine', state: 'active', tokens: [] };
            case 'user.token.added':
                return state && { ...state, tokens: [...state.tokens, e.payload] };
            case 'user.token.removed':
                return state && { ...state, tokens: state.tokens.filter((t) => t.id !== e.payload.id) };
            case 'user.removed':
                return undefined;
            default:
                return state;
        }
    },
};
