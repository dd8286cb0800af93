/** Folds stored events into a record, producing the next row (undefined once removed). */
export function foldRecord(kind, id, previous, events) {
    let record = previous;
    for (const event of events) {
        const state = kind.evolve(record?.state, event);
        if (state === undefined) {
            record = undefined;
            continue;
        }
        record = {
            id,
            state,
            meta: {
                version: event.version,
                sequence: event.position,
                createdAt: record?.meta.createdAt ?? event.createdAt,
                changedAt: event.createdAt,
                owner: event.owner,
            },
        };
    }
    return record;
}
