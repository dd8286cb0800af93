/** The TCP proxy between a node and its PostgreSQL that tests cut, partition and restore (bench/tcp-proxy.ts, shared with the bench's round-trip count). */
export { startTcpProxy, type TcpProxy } from '../../bench/tcp-proxy.js';
