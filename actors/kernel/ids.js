const EPOCH = 1700000000000n;
export function createIdGenerator(now, nodeId = Math.floor(Math.random() * 1024)) {
    let lastMs = 0;
    let sequence = 0;
    const node = BigInt(nodeId & 0x3ff);
    return {
        next() {
            let ms = now();
            if (ms < lastMs)
                ms = lastMs;
            if (ms === lastMs) {
                sequence = (sequence + 1) & 0xfff;
                if (sequence === 0)
                    ms = lastMs + 1; // borrow the next millisecond
            }
            else {
                sequence = 0;
            }
            lastMs = ms;
            return (((BigInt(ms) - EPOCH) << 22n) | (node << 12n) | BigInt(sequence)).toString();
        },
    };
}
