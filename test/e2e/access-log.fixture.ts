/** Reading a test node's access-log lines (msg "request") as they arrive on its stdout. */
import type { TestNode } from './harness.js';

export type LogLine = Record<string, unknown>;

/** The access-log line of `requestId`, waiting for stdout to deliver it (at most `waitMs`). */
export async function accessLine(node: TestNode, requestId: string, waitMs = 10_000): Promise<LogLine> {
  const until = Date.now() + waitMs;
  for (;;) {
    const line = node.logs.find((entry) => entry.msg === 'request' && entry.requestId === requestId);
    if (line !== undefined) return line;
    if (Date.now() > until) throw new Error(`no access-log line for request ${requestId}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The instance id of the node's first instance (from its first-run log line). */
export function firstInstanceId(node: TestNode): string {
  const line = node.logs.find((entry) => entry.msg === 'first run: admin token written');
  if (typeof line?.instanceId !== 'string') throw new Error('no first-run line in the node log');
  return line.instanceId;
}
