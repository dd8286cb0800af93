/**
 * gRPC health checking (grpc.health.v1.Health, grpc/grpc doc/health-checking.md) on the gRPC
 * port: SERVING while the node serves, NOT_SERVING from the moment it starts draining, for the
 * whole server (`""`) and every served service; an unknown service is NOT_FOUND on Check and
 * SERVICE_UNKNOWN on Watch. Watch streams each change until the call or the server ends.
 */
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from '@connectrpc/connect';
import { Health, HealthCheckResponse_ServingStatus as Status, type HealthCheckRequest } from '../../gen/grpc/health/v1/health_pb.js';
import { asClientStreaming, readSingle } from './rpc-registration.js';

export interface HealthState {
  /** Registers the Health service on `router`. */
  register(router: ConnectRouter): void;
  /** NOT_SERVING from now on (the node drains); watchers are told at once. */
  setNotServing(): void;
}

export function createHealthState(serviceNames: readonly string[]): HealthState {
  const known = new Set(['', ...serviceNames]);
  let serving = true;
  const watchers = new Set<() => void>();
  const statusOf = (service: string): Status => (!known.has(service) ? Status.SERVICE_UNKNOWN : serving ? Status.SERVING : Status.NOT_SERVING);

  async function check(requests: AsyncIterable<HealthCheckRequest>) {
    const { service } = await readSingle(requests);
    const status = statusOf(service);
    if (status === Status.SERVICE_UNKNOWN) throw new ConnectError('unknown service', Code.NotFound);
    return { status };
  }

  async function* watch(requests: AsyncIterable<HealthCheckRequest>, ctx: HandlerContext) {
    const { service } = await readSingle(requests);
    let sent: Status | undefined;
    while (!ctx.signal.aborted) {
      const status = statusOf(service);
      if (status !== sent) yield { status };
      sent = status;
      if (!serving) return; // draining: the last word was NOT_SERVING
      await changed(ctx.signal);
    }
  }

  function changed(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        watchers.delete(wake);
        signal.removeEventListener('abort', wake);
        resolve();
      };
      watchers.add(wake);
      signal.addEventListener('abort', wake, { once: true });
    });
  }

  return {
    register(router) {
      // Both read their one request message themselves (rpc-registration.ts): undecodable input is invalid_argument.
      router.rpc(asClientStreaming(Health.method.check), check);
      router.rpc({ ...Health.method.watch, methodKind: 'bidi_streaming' }, watch);
    },
    setNotServing() {
      serving = false;
      for (const wake of [...watchers]) wake();
    },
  };
}
