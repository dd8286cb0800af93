/**
 * Request ids for logs: a random prefix per process and a counter, so an id costs an increment
 * and a short string, and ids of different nodes do not collide. An exchange creates its id
 * when first asked (a 5xx log line, an RPC failure); taking the id from an incoming
 * X-Request-Id and echoing it in the reply (issue #16) only has to set it earlier.
 */
import { randomBytes } from 'node:crypto';

const prefix = randomBytes(4).toString('hex');
let counter = 0;

export function nextRequestId(): string {
  counter += 1;
  return `${prefix}-${counter.toString(36)}`;
}
