/**
 * The outbox worker (issue 14): delivers the messages queued in the store (`message.queued`,
 * actors/organization/outbox-message.ts, recorded in the same append as the fact that caused
 * them) with retries and exponential backoff, at least once and never again after a recorded
 * success:
 *
 * - At start it reads the pending messages of every instance that has one (the table holds only
 *   pending ones, and the store lists the instances with rows in it: instancesWithRows), so
 *   messages queued before a crash or stop are picked up; a message queued on this node wakes it
 *   at once (`notifyOnQueued` watches the store's appends); other nodes' messages are found by
 *   the periodic scan (TESSERA_OUTBOX_POLL_MS for instances known to have pending messages, the
 *   store's list of instances with pending messages every 15 polls).
 * - One node per instance sends, holding the instance's outbox lease (the event executions'
 *   lease, src/executions/delivery-lease.ts, on its own row); LMDB has one process and no lease.
 * - After the provider accepted a message, `message.delivered` removes its row durably before
 *   the next message; a crash between the two sends it again (at least once). A failure records
 *   `message.attempt.failed` with the next attempt's time (TESSERA_OUTBOX_BACKOFF_MS doubled per
 *   attempt up to TESSERA_OUTBOX_MAX_BACKOFF_MS); after TESSERA_OUTBOX_MAX_ATTEMPTS attempts
 *   `message.abandoned`.
 * - Failures are visible: `tessera_outbox_deliveries_total{kind,result}`, a warning log line
 *   per failed attempt, and the provider's `lastError` (`instance.<kind>.provider.delivery.failed`).
 *
 * Mail goes through the instance's active SMTP provider, else the node's default SMTP server
 * (TESSERA_SMTP_*); SMS through the active SMS provider.
 */
import {
  OUTBOX_TABLE,
  outboxMessageKind,
  recordMessageAttempt,
  recordSmsProviderDelivery,
  recordSmtpProviderDelivery,
  SMS_PROVIDERS,
  SMTP_PROVIDERS,
  type ActorSystem,
  type AggregateRecord,
  type AppendRequest,
  type Clock,
  type Logger,
  type MessageAttemptOutcome,
  type OutboxMessage,
  type StoreAdapter,
} from '../../actors/index.js';
import type { Config } from '../config/schema.js';
import { DeliveryLease } from '../executions/delivery-lease.js';
import { outboundPolicyOf } from './policy.js';
import { sendSms, smsSettingsOf } from './sms.js';
import { clip, sendMail, type DeliveryResult, type SmtpSettings } from './smtp.js';
import { defaultSmtpOf, type DefaultSmtpConfig } from './default-smtp.js';

export type OutboxConfig = DefaultSmtpConfig & Pick<Config, 'outboxPollMs' | 'outboxBackoffMs' | 'outboxMaxBackoffMs' | 'outboxMaxAttempts' | 'outboundAllowPrivateNetworks'>;

export interface OutboxMetrics {
  outboxDelivery(kind: string, result: 'delivered' | 'failed' | 'abandoned'): void;
}

export interface OutboxWorkerOptions {
  readonly actors: ActorSystem;
  readonly store: StoreAdapter;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly config: OutboxConfig;
  readonly metrics?: OutboxMetrics;
  /** Lifetime of an instance's outbox lease between nodes (renewed every third of it). */
  readonly leaseMs?: number;
}

/** Where a message goes out: a provider of the instance, or the node's default SMTP server. */
interface Sender {
  readonly providerId: string;
  send(message: OutboxMessage, text: string, instanceId: string): Promise<DeliveryResult>;
}

const FULL_SCAN_EVERY = 15;

/** A store whose appends of `message.queued` call `onQueued` with the instance (after the commit). */
export function notifyOnQueued(store: StoreAdapter, onQueued: (instanceId: string) => void): StoreAdapter {
  const append = async (request: AppendRequest) => {
    const result = await store.append(request);
    if (result.ok && request.events.some((e) => e.type === 'message.queued')) onQueued(request.instanceId);
    return result;
  };
  return new Proxy(store, { get: (target, prop, receiver) => (prop === 'append' ? append : Reflect.get(target, prop, receiver)) });
}

export class OutboxWorker {
  private readonly lease: DeliveryLease;
  /** Instances known to have pending messages (or just woken), with their pending count. */
  private readonly active = new Map<string, number>();
  private readonly stopping = new AbortController();
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private loop: Promise<void> = Promise.resolve();
  private readonly policy;

  constructor(private readonly o: OutboxWorkerOptions) {
    this.lease = new DeliveryLease({ ttl: o.store.ttl, clock: o.clock, logger: o.logger, leaseMs: o.leaseMs ?? 15_000, table: 'outbox.lease', key: 'outbox', label: 'outbox' });
    this.policy = outboundPolicyOf(o.config);
  }

  /** Finds the instances with pending messages and starts delivering. */
  start(): void {
    this.loop = this.run().catch((err: unknown) => this.o.logger.error({ err }, 'outbox worker stopped on an error'));
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.wakeUp?.();
    await this.loop;
    await this.lease.releaseAll();
  }

  /** A message was queued for the instance: deliver it now. */
  wake(instanceId: string): void {
    if (!this.active.has(instanceId)) this.active.set(instanceId, 0);
    this.woken = true;
    this.wakeUp?.();
  }

  /** Messages not yet delivered in the instances this node watches (as of their last scan). */
  pending(): number {
    let total = 0;
    for (const count of this.active.values()) total += count;
    return total;
  }

  private async run(): Promise<void> {
    let round = 0;
    while (!this.stopping.signal.aborted) {
      if (round % FULL_SCAN_EVERY === 0) await this.scanInstances();
      round += 1;
      this.woken = false;
      for (const instanceId of [...this.active.keys()]) {
        if (this.stopping.signal.aborted) return;
        try {
          await this.deliverInstance(instanceId);
        } catch (err) {
          this.o.logger.error({ err, instanceId }, 'outbox delivery round failed; retrying on the next round');
        }
      }
      if (!this.woken) await this.sleep(this.o.config.outboxPollMs);
    }
  }

  private async scanInstances(): Promise<void> {
    try {
      for await (const instanceId of this.o.store.instancesWithRows(OUTBOX_TABLE)) {
        if (!this.active.has(instanceId)) this.active.set(instanceId, 0);
      }
    } catch (err) {
      this.o.logger.error({ err }, 'outbox instance scan failed');
    }
  }

  private async deliverInstance(instanceId: string): Promise<void> {
    // Read first: an instance without pending messages costs one range read, no lease write.
    const rows: AggregateRecord<OutboxMessage>[] = [];
    for await (const row of this.o.actors.scanRecords(instanceId, outboxMessageKind)) rows.push(row);
    if (rows.length === 0) {
      this.active.delete(instanceId);
      await this.lease.release(instanceId);
      return;
    }
    if (!(await this.lease.acquire(instanceId))) {
      this.active.set(instanceId, 0); // another node delivers this instance's messages
      return;
    }
    this.active.set(instanceId, rows.length);
    for (const row of rows) {
      if (this.stopping.signal.aborted || !this.lease.isHeld(instanceId)) return;
      if (row.state.nextAttemptAt > this.o.clock.now()) continue;
      // Read again: another node may have delivered it, or recorded an attempt, before this one held the lease.
      const fresh = await this.o.actors.readRecord(instanceId, outboxMessageKind, row.id);
      if (fresh === undefined || fresh.state.nextAttemptAt > this.o.clock.now()) continue;
      await this.deliver(instanceId, fresh);
    }
  }

  private async deliver(instanceId: string, row: AggregateRecord<OutboxMessage>): Promise<void> {
    const message = row.state;
    const kind = message.channel;
    const sender = await this.senderFor(instanceId, message);
    const attempt = message.attempts + 1;
    let result: DeliveryResult;
    if (sender === undefined) {
      result = { success: false, answer: kind === 'mail' ? 'no SMTP provider is active and no default SMTP server is configured' : 'no SMS provider is active' };
    } else {
      try {
        result = await sender.send(message, this.o.actors.sealer.open(message.text), instanceId);
      } catch (err) {
        result = { success: false, answer: clip(err instanceof Error ? err.message : String(err)) };
      }
    }
    const providerId = sender?.providerId ?? '';
    const log = { instanceId, messageId: row.id, kind, purpose: message.purpose, attempt, providerId: providerId === '' ? undefined : providerId };
    let outcome: MessageAttemptOutcome;
    if (result.success) {
      outcome = { result: 'delivered', providerId, answer: result.answer };
    } else if (attempt >= this.o.config.outboxMaxAttempts) {
      outcome = { result: 'abandoned', error: result.answer };
    } else {
      const wait = Math.min(this.o.config.outboxMaxBackoffMs, this.o.config.outboxBackoffMs * 2 ** (attempt - 1));
      outcome = { result: 'failed', providerId, error: result.answer, nextAttemptAt: this.o.clock.now() + wait };
    }
    // Recorded before anything else: a delivered message must not be sent again.
    await this.o.actors.ask({ kind: 'org', instanceId, orgId: message.orgId }, recordMessageAttempt, { orgId: message.orgId, messageId: row.id, outcome }, { creator: '' });
    this.o.metrics?.outboxDelivery(kind, outcome.result);
    if (outcome.result === 'delivered') this.o.logger.info(log, 'outbox message delivered');
    else if (outcome.result === 'failed') this.o.logger.warn({ ...log, error: result.answer, nextAttemptAt: new Date(outcome.nextAttemptAt).toISOString() }, 'outbox message delivery failed; will retry');
    else this.o.logger.error({ ...log, error: result.answer }, 'outbox message abandoned after the last attempt');
    if (providerId !== '') await this.reportProvider(instanceId, kind, providerId, result.success ? undefined : result.answer);
  }

  private async reportProvider(instanceId: string, kind: string, providerId: string, error: string | undefined): Promise<void> {
    try {
      const command = kind === 'mail' ? recordSmtpProviderDelivery : recordSmsProviderDelivery;
      await this.o.actors.ask({ kind: 'instance', instanceId }, command, { providerId, ...(error === undefined ? {} : { error }) }, { creator: '' });
    } catch (err) {
      this.o.logger.warn({ err, instanceId, providerId }, 'could not record the provider delivery state');
    }
  }

  private async senderFor(instanceId: string, message: OutboxMessage): Promise<Sender | undefined> {
    const actors = this.o.actors;
    const open = (sealed: string) => (sealed === '' ? '' : actors.sealer.open(sealed));
    if (message.channel === 'sms') {
      const activeId = (await actors.readRecord(instanceId, SMS_PROVIDERS.activation, instanceId))?.state.activeId ?? '';
      const provider = activeId === '' ? undefined : await actors.readRecord(instanceId, SMS_PROVIDERS.kind, activeId);
      if (provider === undefined) return undefined;
      const settings = smsSettingsOf(provider.state, open);
      return {
        providerId: activeId,
        send: (m, text) => sendSms(settings, { to: m.to, text, instanceId, providerId: activeId }, this.policy, Math.floor(this.o.clock.now() / 1000)),
      };
    }
    const activeId = (await actors.readRecord(instanceId, SMTP_PROVIDERS.activation, instanceId))?.state.activeId ?? '';
    const provider = activeId === '' ? undefined : await actors.readRecord(instanceId, SMTP_PROVIDERS.kind, activeId);
    if (provider !== undefined) {
      const settings: SmtpSettings = { ...provider.state, password: open(provider.state.password) };
      return { providerId: activeId, send: (m, text) => sendMail(settings, { to: m.to, subject: m.subject, text }, this.policy) };
    }
    const fallback = defaultSmtpOf(this.o.config);
    if (fallback === undefined) return undefined;
    return { providerId: '', send: (m, text) => sendMail(fallback, { to: m.to, subject: m.subject, text }, this.policy) };
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      this.wakeUp = done;
      function done() {
        clearTimeout(timer);
        self.wakeUp = undefined;
        resolve();
      }
    });
  }
}
