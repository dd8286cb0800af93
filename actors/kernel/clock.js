export const systemClock = { now: () => Date.now() };
export function createManualClock(start = Date.UTC(2026, 0, 1)) {
    let current = start;
    return {
        now: () => current,
        set: (ms) => {
            current = ms;
        },
        advance: (ms) => {
            current += ms;
        },
    };
}
