/**
 * Counts the statements the PostgreSQL store sends (`tessera_store_statements`, docs/operations/
 * postgres.md "Round trips"): every `unsafe` query is one (on the pool or on a reserved
 * connection), a `begin` transaction adds its BEGIN and COMMIT. The pool handed to the adapter's
 * parts is this wrapper, so no call site can skip it; the cost is one increment per statement.
 * The bench divides the difference by the requests sent to get round trips per request.
 */
import type { ReservedSql, Sql, TransactionSql } from 'postgres';

export interface StatementCounter {
  /** Statements sent since the store opened. */
  readonly count: () => number;
}

/** `sql` with its statements counted into the returned counter. */
export function countStatements(sql: Sql): { sql: Sql; counter: StatementCounter } {
  let sent = 0;
  const unsafe = ((...args: Parameters<Sql['unsafe']>) => {
    sent += 1;
    return sql.unsafe(...args);
  }) as Sql['unsafe'];
  const countedTx = <T extends TransactionSql | ReservedSql>(tx: T): T =>
    new Proxy(tx, {
      get(target, property) {
        if (property === 'unsafe') {
          return (...args: Parameters<TransactionSql['unsafe']>) => {
            sent += 1;
            return (target as TransactionSql).unsafe(...args);
          };
        }
        return Reflect.get(target, property, target) as unknown;
      },
    });
  const begin = ((...args: unknown[]) => {
    sent += 2; // BEGIN and COMMIT (or ROLLBACK)
    const callback = args[args.length - 1] as (tx: TransactionSql) => unknown;
    const rest = args.slice(0, -1);
    return (sql.begin as (...a: unknown[]) => unknown)(...rest, (tx: TransactionSql) => callback(countedTx(tx)));
  }) as Sql['begin'];
  // A reserved connection's statements are counted like the pool's (its BEGIN and COMMIT are statements of its own).
  const reserve = (() => sql.reserve().then(countedTx)) as Sql['reserve'];
  const counted = new Proxy(sql, {
    get(target, property) {
      if (property === 'unsafe') return unsafe;
      if (property === 'begin') return begin;
      if (property === 'reserve') return reserve;
      return Reflect.get(target, property, target) as unknown;
    },
    apply(target, self, args) {
      sent += 1;
      return Reflect.apply(target, self, args) as unknown;
    },
  });
  return { sql: counted, counter: { count: () => sent } };
}
