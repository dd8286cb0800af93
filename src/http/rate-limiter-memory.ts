/**
 * rate-limiter-flexible's in-memory limiter and its result class, required from their own
 * files: the package's index loads every store adapter it has (Redis, Mongo, MySQL, Dynamo,
 * cluster, …), which a node never uses (~5 MiB of RSS in a bare node, idle memory #13). The
 * classes are the ones the index exports (the same module files), types from the package.
 */
import { createRequire } from 'node:module';
import type * as Flexible from 'rate-limiter-flexible';

const require = createRequire(import.meta.url);

export const RateLimiterMemory = require('rate-limiter-flexible/lib/RateLimiterMemory.js') as typeof Flexible.RateLimiterMemory;
export const RateLimiterRes = require('rate-limiter-flexible/lib/RateLimiterRes.js') as typeof Flexible.RateLimiterRes;
/** Instance types under the classes' names, as the package declares them. */
export type RateLimiterRes = Flexible.RateLimiterRes;
export type RateLimiterMemory = Flexible.RateLimiterMemory;
