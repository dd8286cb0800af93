/**
 * Request ids for logs and the X-Request-Id reply header: the client's own X-Request-Id when it
 * is short and plain (1–128 of letters, digits and `-_.:/+=@`, so it cannot forge log lines or
 * headers), else a random prefix per process and a counter, so an id costs an increment and a
 * short string, and ids of different nodes do not collide.
 */
import { randomBytes } from 'node:crypto';

const prefix = randomBytes(4).toString('hex');
let counter = 0;

export function nextRequestId(): string {
  counter += 1;
  return `${prefix}-${counter.toString(36)}`;
}

const ACCEPTED = /^[A-Za-z0-9\-_.:/+=@]{1,128}$/;

/** The incoming X-Request-Id when acceptable, else a new id. */
export function acceptRequestId(incoming: string | undefined): string {
  return incoming !== undefined && ACCEPTED.test(incoming) ? incoming : nextRequestId();
}
