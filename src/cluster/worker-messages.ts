/** Messages between the main thread (workers.ts) and a worker thread (worker-main.ts). */

export type ToWorker =
  /** Drain and stop (the node's stop: drain period, grace, flush), then exit 0. */
  | { readonly type: 'stop' }
  /** Close every socket at once and exit 1 (a stop past its deadline). */
  | { readonly type: 'abort' }
  /** TESSERA_TEST_MODE only: fail with an uncaught error, as a bug would (the restart test). */
  | { readonly type: 'crash' }
  /** Send this thread's metrics as prom-client JSON. */
  | { readonly type: 'metrics-collect'; readonly id: number }
  /** The aggregated metrics the worker asked for. */
  | { readonly type: 'metrics-result'; readonly id: number; readonly text: string };

export type FromWorker =
  | { readonly type: 'ready'; readonly httpPort: number; readonly grpcPort: number }
  /** A /metrics request: aggregate every worker's metrics. */
  | { readonly type: 'metrics-request'; readonly id: number }
  | { readonly type: 'metrics-json'; readonly id: number; readonly json: unknown }
  /** The worker could not start (it exits 1 next). */
  | { readonly type: 'start-failed'; readonly error: string };
