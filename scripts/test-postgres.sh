#!/usr/bin/env bash
# The end-to-end suites (test/e2e, and the isolation suite in test/chaos) again, each node on PostgreSQL (TESSERA_TEST_STORE=postgres: test/e2e/harness.ts
# gives every node a fresh schema of TESSERA_TEST_DATABASE_URL and drops it afterwards).
# Extra vitest arguments (file filters) pass through: npm run test:postgres -- test/e2e/users.test.ts
set -euo pipefail
cd "$(dirname "$0")/.."
export TESSERA_TEST_STORE=postgres
export TESSERA_TEST_DATABASE_URL="${TESSERA_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"

# Left out on purpose, each with its reason:
excluded=(
  # LMDB-only by design: backs up and restores an LMDB data directory (PostgreSQL has its own tools).
  test/e2e/backup-restore.test.ts
  # Already on PostgreSQL with their own schemas (or moving between both stores): nothing to switch.
  test/e2e/postgres-node.test.ts
  test/e2e/postgres-outage.test.ts
  test/e2e/multi-node.test.ts
  test/e2e/rate-limits-cluster.test.ts
  test/e2e/store-transfer.test.ts
)
args=()
for file in "${excluded[@]}"; do args+=(--exclude "$file"); done

if [ "$#" -gt 0 ]; then
  exec npx vitest run "$@"
fi
exec npx vitest run test/e2e test/chaos "${args[@]}"
