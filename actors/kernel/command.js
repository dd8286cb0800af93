export function ref(kind, id) {
    return { kind: kind, id };
}
