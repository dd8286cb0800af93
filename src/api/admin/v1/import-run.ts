/**
 * One import: runs the phases of reference facts §6.2 over the document's organizations and
 * keeps the bookkeeping — an error per failed item (the import goes on), counts of created /
 * skipped / failed per type, and the success lists. Each item is one command (atomic); an
 * item whose id already exists is skipped, so running the same import twice creates nothing.
 * Items of one kind in bulk (human users) go to their actor in groups (`items`): one read asks
 * which exist, the commands of a group share one store append, and a command that fails fails alone.
 * Only the deadline aborts; work already done is kept (nothing is rolled back).
 */
import { AppError, type ActorSystem, type Logger, type Settled } from '../../../../actors/index.js';
import type { DataOrg } from './export-format.js';
import { importOrgObjects } from './import-phase-one.js';
import { importGrants, importMembers } from './import-phase-two.js';
import { importStates } from './import-states.js';

export interface ImportDeps {
  readonly actors: ActorSystem;
  readonly instanceId: string;
  /** The target instance's primary domain (generated org domains derive from it). */
  readonly instanceDomain: string;
  /** The importing user: creator of every event. */
  readonly creator: string;
  readonly logger: Logger;
  readonly now: () => number;
}

export interface ImportError {
  readonly type: string;
  readonly id: string;
  readonly message: string;
  /** Tessera extension: the stable error code. */
  readonly code: string;
}

export interface Counts {
  created: number;
  skipped: number;
  failed: number;
}

/** `success.orgs[]` of the reference, plus `appClientIds` (client ids and new secrets the target generated). */
export interface OrgSuccess {
  orgId: string;
  domains: string[];
  humanUserIds: string[];
  machineUserIds: string[];
  userMetadata: { userId: string; key: string }[];
  userLinks: { userId: string; externalUserId: string; displayName: string; idpId: string }[];
  projectIds: string[];
  projectRoles: string[];
  oidcAppIds: string[];
  apiAppIds: string[];
  /** The target's client id, and the new client secret (only when created and the auth method uses one). */
  appClientIds: { appId: string; clientId: string; clientSecret?: string }[];
  projectGrants: { grantId: string; projectId: string; orgId: string }[];
  userGrants: { projectId: string; userId: string }[];
  orgMembers: string[];
  projectMembers: { projectId: string; userId: string }[];
}

export interface ImportResult {
  readonly errors: ImportError[];
  readonly success: { orgs: OrgSuccess[] };
  readonly counts: Record<string, Counts>;
}

export type ItemOutcome = 'created' | 'skipped' | 'failed';

export class ImportRun {
  readonly result: ImportResult = { errors: [], success: { orgs: [] }, counts: {} };
  private readonly deadline: number;

  constructor(
    readonly deps: ImportDeps,
    timeoutMs: number,
  ) {
    this.deadline = deps.now() + timeoutMs;
  }

  newId(): string {
    return this.deps.actors.ids.next();
  }

  /** Throws deadline_exceeded once the timeout elapsed (checked before every item). */
  checkDeadline(): void {
    if (this.deps.now() > this.deadline) {
      throw new AppError('deadline_exceeded', 'import.deadline_exceeded', 'the import timed out; work already done is kept, run the import again to continue');
    }
  }

  /**
   * One object: skipped when `exists` says it is already there, else created by `create` (a
   * single command). A failure is recorded under `type`/`id` and the import goes on.
   */
  async item(type: string, id: string, exists: () => Promise<boolean>, create: () => Promise<void>): Promise<ItemOutcome> {
    this.checkDeadline();
    const counts = (this.result.counts[type] ??= { created: 0, skipped: 0, failed: 0 });
    try {
      if (await exists()) {
        counts.skipped++;
        return 'skipped';
      }
      await create();
      counts.created++;
      return 'created';
    } catch (error) {
      counts.failed++;
      this.fail(type, id, error);
      return 'failed';
    }
  }

  /**
   * Many objects of one type, each as `item` would do it (skipped when it exists, else its
   * command, a failure recorded under `type`/`id` and the import goes on), but whether they
   * exist is asked once for all by `exist` (one store read), and the commands are sent together
   * by `send` (ActorSystem.askEach: one letter, one store append for all that succeed).
   * `command` builds an entry's command and throws when the entry is invalid (that entry fails
   * alone). Outcomes in the order of `entries`.
   */
  async items<C>(
    type: string,
    entries: readonly { readonly id: string; readonly command: () => C }[],
    io: {
      /** Whether each of `ids` exists already, in `ids` order. */
      readonly exist: (ids: readonly string[]) => Promise<readonly boolean[]>;
      readonly send: (commands: C[]) => Promise<Settled<unknown>[]>;
    },
  ): Promise<ItemOutcome[]> {
    const counts = (this.result.counts[type] ??= { created: 0, skipped: 0, failed: 0 });
    const outcomes: ItemOutcome[] = [];
    let sent: { readonly at: number; readonly id: string; readonly command: C }[] = [];
    const flush = async () => {
      const group = sent;
      sent = [];
      if (group.length === 0) return;
      let settled: Settled<unknown>[];
      try {
        settled = await io.send(group.map((g) => g.command));
      } catch (error) {
        // The letter itself was refused (full mailbox, deadline, stopping node): none of them ran.
        settled = group.map(() => ({ ok: false, error }));
      }
      group.forEach(({ at, id }, i) => {
        const one = settled[i]!;
        if (one.ok) {
          counts.created++;
          return;
        }
        counts.failed++;
        outcomes[at] = 'failed';
        this.fail(type, id, one.error);
      });
    };
    // A failed read answers nothing here: each entry then asks alone and fails alone.
    const existing = await io.exist(entries.map((e) => e.id)).catch(() => undefined);
    /** Ids whose command was sent or is pending: the group's read no longer answers for them. */
    const commanded = new Set<string>();
    for (const [i, entry] of entries.entries()) {
      this.checkDeadline();
      // The same id twice: the first is created before the second asks whether it exists (skipped, as one by one).
      const again = commanded.has(entry.id);
      if (again && sent.some((s) => s.id === entry.id)) await flush();
      try {
        const exists = again || existing === undefined ? (await io.exist([entry.id]))[0] : existing[i];
        if (exists === true) {
          counts.skipped++;
          outcomes.push('skipped');
          continue;
        }
        sent.push({ at: outcomes.length, id: entry.id, command: entry.command() });
        commanded.add(entry.id);
        outcomes.push('created'); // unless its command fails (flush)
      } catch (error) {
        counts.failed++;
        this.fail(type, entry.id, error);
        outcomes.push('failed');
      }
    }
    await flush();
    return outcomes;
  }

  fail(type: string, id: string, error: unknown): void {
    if (error instanceof AppError) {
      const v = error.violations[0];
      const message = v === undefined || error.message.includes(v.field) ? error.message : `${error.message} (${v.field}: ${v.description})`;
      this.result.errors.push({ type, id, message, code: error.code });
      return;
    }
    this.deps.logger.error({ err: error, type, id }, 'import item failed');
    this.result.errors.push({ type, id, message: 'internal error', code: 'internal.unexpected' });
  }
}

/** Imports the organizations; throws deadline_exceeded (with the partial result in `run.result`). */
export async function runImport(run: ImportRun, orgs: readonly DataOrg[]): Promise<ImportResult> {
  const imported: { org: DataOrg; success: OrgSuccess }[] = [];
  for (const org of orgs) {
    const success = emptySuccess(org.orgId);
    if (await importOrgObjects(run, org, success)) {
      imported.push({ org, success });
      run.result.success.orgs.push(success);
    }
  }
  for (const { org, success } of imported) await importGrants(run, org, success);
  for (const { org, success } of imported) await importMembers(run, org, success);
  for (const { org } of imported) await importStates(run, org);
  return run.result;
}

function emptySuccess(orgId: string): OrgSuccess {
  return {
    orgId,
    domains: [],
    humanUserIds: [],
    machineUserIds: [],
    userMetadata: [],
    userLinks: [],
    projectIds: [],
    projectRoles: [],
    oidcAppIds: [],
    apiAppIds: [],
    appClientIds: [],
    projectGrants: [],
    userGrants: [],
    orgMembers: [],
    projectMembers: [],
  };
}
