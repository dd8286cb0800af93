/**
 * The organization import's human users over a real store, LMDB and PostgreSQL (when
 * TESSERA_TEST_DATABASE_URL answers): a group of users costs the same few store round trips
 * whether it holds 10 users or 100 (one read of which exist, one of the aggregates the commands
 * load, one append), not three reads per user (issue #15), and each user keeps the outcome it
 * would have had alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ActorSystem, createIdGenerator, createManualClock, INDEX_CATALOG, UNIQUE_SCOPES, userKind, type StoreAdapter } from '../../actors/index.js';
import type { DataHumanUser, DataMachineUser, DataOrg } from '../../src/api/admin/v1/export-format.js';
import { ImportRun, runImport, type ImportResult } from '../../src/api/admin/v1/import-run.js';
import { describeIfMet, meet, POSTGRES } from '../requirements.js';
import { tempLmdbStore, tempPostgresStore } from '../store/temp-stores.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

interface Opened {
  readonly store: StoreAdapter;
  /** Statements sent to the database (PostgreSQL only). */
  readonly statements?: () => number;
  readonly cleanup: () => Promise<void>;
}

const human = (userId: string, userName = userId): DataHumanUser => ({
  userId,
  user: {
    userName,
    profile: { firstName: 'Given', lastName: userId, nickName: '', displayName: '', preferredLanguage: 'en', gender: 'GENDER_UNSPECIFIED' },
    email: { email: `${userId}@example.com`, isEmailVerified: true },
    passwordChangeRequired: false,
  },
});

const machine = (userId: string): DataMachineUser => ({ userId, user: { userName: userId, name: userId, description: '', accessTokenType: 'ACCESS_TOKEN_TYPE_BEARER' } });

const users = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

function describeImportBatch(name: string, open: () => Promise<Opened>): void {
  describe(`import of human users in groups (${name})`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const clean of cleanups.splice(0).reverse()) await clean();
    });

    /** An actor system over the store, its store calls counted (every port call is one round trip on PostgreSQL). */
    async function start() {
      const opened = await open();
      let calls = 0;
      const counted = new Proxy(opened.store, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            calls += 1;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      const clock = createManualClock();
      const actors = new ActorSystem({ store: counted, clock, ids: createIdGenerator(() => clock.now()), sealer: { seal: (s) => s, open: (s) => s }, logger: silent, uniqueScopes: UNIQUE_SCOPES });
      cleanups.push(opened.cleanup, () => actors.stop());
      const importOrgs = (orgs: DataOrg[]): Promise<ImportResult> =>
        runImport(new ImportRun({ actors, instanceId: 'i1', instanceDomain: 'example.com', creator: 'importer', logger: silent, now: () => clock.now() }, 60_000), orgs);
      /** The store calls (and statements) an import of `orgs` cost, with its result. */
      const cost = async (orgs: DataOrg[]) => {
        const [calls0, statements0] = [calls, opened.statements?.()];
        const result = await importOrgs(orgs);
        return { result, calls: calls - calls0, statements: statements0 === undefined ? undefined : opened.statements!() - statements0 }; // statements present with statements0
      };
      return { actors, importOrgs, cost };
    }

    it('costs the same few store round trips for 10 users as for 100; one user at a time (machine users) costs several per user', async () => {
      const { cost } = await start();
      const ten = await cost([{ orgId: 'o10', org: { name: 'Ten' }, humanUsers: users('ten', 10).map((id) => human(id)) }]);
      const hundred = await cost([{ orgId: 'o100', org: { name: 'Hundred' }, humanUsers: users('hundred', 100).map((id) => human(id)) }]);
      expect(ten.result.counts.human_user).toEqual({ created: 10, skipped: 0, failed: 0 });
      expect(hundred.result.counts.human_user).toEqual({ created: 100, skipped: 0, failed: 0 });
      expect(hundred.result.errors).toEqual([]);
      // One read of which exist, one of the aggregates, one append: 90 more users add (almost) nothing.
      expect(hundred.calls - ten.calls).toBeLessThan(10);
      if (hundred.statements !== undefined) expect(hundred.statements - ten.statements!).toBeLessThan(10); // both counted on PostgreSQL

      // Control: machine users are still imported one at a time, and the same counters see each user's reads and append.
      const machinesTen = await cost([{ orgId: 'm10', org: { name: 'Machines ten' }, machineUsers: users('mten', 10).map(machine) }]);
      const machinesHundred = await cost([{ orgId: 'm100', org: { name: 'Machines hundred' }, machineUsers: users('mhundred', 100).map(machine) }]);
      expect(machinesHundred.result.counts.machine_user).toEqual({ created: 100, skipped: 0, failed: 0 });
      expect(machinesHundred.calls - machinesTen.calls).toBeGreaterThanOrEqual(3 * 90);
      if (machinesHundred.statements !== undefined) expect(machinesHundred.statements - machinesTen.statements!).toBeGreaterThanOrEqual(3 * 90);
    });

    it('gives each user of a group its own outcome: a taken username and a repeated one fail alone, existing and repeated users are skipped', async () => {
      const { actors, importOrgs } = await start();
      const first = await importOrgs([{ orgId: 'o1', org: { name: 'Org' }, humanUsers: [human('old', 'taken')] }]);
      expect(first.counts.human_user).toEqual({ created: 1, skipped: 0, failed: 0 });

      const group = [human('a'), human('b', 'taken'), human('c', 'same'), human('d'), human('e', 'same'), human('old'), human('f'), human('d'), human('d')];
      const second = await importOrgs([{ orgId: 'o1', org: { name: 'Org' }, humanUsers: group }]);
      // d is created once, then skipped twice, as one by one.
      expect(second.counts.human_user).toEqual({ created: 4, skipped: 3, failed: 2 });
      expect(second.errors.map((e) => [e.type, e.id, e.code])).toEqual([
        ['human_user', 'b', 'user.username_taken'],
        ['human_user', 'e', 'user.username_taken'],
      ]);
      expect(second.success.orgs[0]?.humanUserIds).toEqual(['a', 'c', 'd', 'f']);
      const rows = await actors.readRecords('i1', userKind, ['old', 'a', 'b', 'c', 'd', 'e', 'f']);
      expect(rows.map((r) => r?.state.username)).toEqual(['taken', 'a', undefined, 'same', 'd', undefined, 'f']);

      // The same document again: every user that exists is skipped (one read for the group), the two refused ones fail again.
      const again = await importOrgs([{ orgId: 'o1', org: { name: 'Org' }, humanUsers: group }]);
      expect(again.counts.human_user).toEqual({ created: 0, skipped: 7, failed: 2 });
    });
  });
}

describeImportBatch('lmdb', async () => tempLmdbStore('tessera-import-batch-', { catalog: INDEX_CATALOG }));

const postgresVerdict = await meet(POSTGRES);
describeIfMet(postgresVerdict, 'import of human users in groups on PostgreSQL', () => {
  describeImportBatch('postgres', async () => {
    const temp = await tempPostgresStore({ maxConnections: 4, catalog: INDEX_CATALOG });
    return { ...temp, statements: () => temp.store.statementCount?.() ?? 0 };
  });
});
