// The slices of the scheduled Stryker run (docs/mutation.md): each mutates one part of the
// source and runs the tests that can kill its mutants, resolved to src/ (vitest.stryker.config.ts).
// The whole source is ~8,000 mutants, a working day on 2 cores; a slice is an hour or two,
// and `scripts/stryker/run.mjs` with no slice takes the next one in turn each day.

const engine = (names) => names.map((n) => `packages/core/src/engine/${n}.ts`);
const guard = (names) => names.map((n) => `packages/core/src/guard/${n}.ts`);

/** Tests every core slice runs: core's units, the engine's metrics, both suites on memory, the simulation. */
const CORE_TESTS = [
  'packages/core/test/*.test.ts',
  'packages/conformance/test/engine-*metrics.test.ts',
  'packages/conformance/test/memory.stryker.ts',
  'packages/conformance/test/simulation.stryker.ts',
];

/** @type {Record<string, { mutate: string[], tests: string[], services?: string }>} */
export const SLICES = {
  runner: {
    mutate: engine([
      'runner',
      'run-endings',
      'run-context',
      'step-retry',
      'step-timeout',
      'retry-policy',
      'step-checks',
      'client-calls',
      'completions',
      'undo-errors',
      'tx-error',
    ]),
    tests: CORE_TESTS,
  },
  workers: {
    mutate: engine([
      'workers',
      'work-finder',
      'batched-claim',
      'hand-out',
      'finder-wake',
      'work-queue',
      'pools',
      'claimed-work',
      'worker-drain',
      'failure-backoff',
      'fate',
      'lease',
      'membership',
      'age-off-sweep',
      'held-records',
    ]),
    tests: CORE_TESTS,
  },
  features: {
    mutate: engine(['schedules', 'schedule-tick', 'children', 'child-scope', 'op-limits']),
    tests: CORE_TESTS,
  },
  liveness: {
    mutate: guard([
      'client-liveness',
      'dead-holders',
      'lease-observer',
      'age-off',
      'age-off-queries',
      'reserving',
      'reservation-ledger',
      'until-free',
      'release-as-found',
    ]),
    tests: CORE_TESTS,
  },
  handle: {
    mutate: guard([
      'reserved-fate',
      'handle-state',
      'handle-write',
      'commit-draft',
      'claims',
      'finish-claims',
      'claim-next',
      'seeding',
      'seed-deferral',
      'guarded-call',
      'retry',
      'backend-caller',
    ]).concat(['packages/core/src/tick-batch.ts']),
    tests: CORE_TESTS,
  },
  reads: {
    mutate: guard([
      'guarded-fates-store',
      'guarded-reads',
      'store-queries',
      'scan-page',
      'summarize',
      'codec',
      'payload-size',
    ]),
    tests: CORE_TESTS,
  },
  sqlite: {
    mutate: ['packages/store-sqlite/src/*.ts', 'packages/sql-common/src/*.ts'],
    // and the backend's own in-process cases: the group commit's busy file, the reserve race
    // (a second connection), liveness pruned under another connection's write lock, …
    tests: [
      'packages/store-sqlite/test/sqlite.stryker.ts',
      ...['group-commit', 'reserve-race', 'clock', 'liveness', 'priorities', 'scans'].map(
        (n) => `packages/store-sqlite/test/sqlite-${n}.test.ts`,
      ),
      'packages/sql-common/test/*.test.ts',
    ],
  },
  postgres: {
    mutate: ['packages/store-postgres/src/*.ts'],
    tests: [
      'packages/store-postgres/test/postgres.stryker.ts',
      ...[
        'backend',
        'config',
        'errors',
        'liveness',
        'reserve-race',
        'priorities',
        'scans',
        'group-write',
      ].map((n) => `packages/store-postgres/test/postgres-${n}.test.ts`),
    ],
    services: 'PostgreSQL on 127.0.0.1:5432 (or FATE_PG_URL)',
  },
  redis: {
    // the Lua is a string to Stryker: redis-lua.mutants.ts rewrites it (npm run test:mutants)
    mutate: ['packages/store-redis/src/*.ts'],
    tests: [
      'packages/store-redis/test/redis.stryker.ts',
      ...['indexes', 'clock', 'shards', 'sent-claims', 'batches'].map(
        (n) => `packages/store-redis/test/redis-${n}.test.ts`,
      ),
    ],
    services: 'redis-server on PATH',
  },
  zk: {
    mutate: ['packages/store-zk/src/*.ts'],
    // and the backend's own in-process cases: index upkeep, markers judged across pauses,
    // repeats after lost replies, the record cache, races of two clients, …
    tests: [
      'packages/store-zk/test/zk.stryker.ts',
      ...[
        'indexes',
        'marker-pauses',
        'priorities',
        'repeats',
        'record-cache',
        'backend-races',
        'liveness',
        'pipeline-break',
        'config',
        'markers',
      ].map((n) => `packages/store-zk/test/zk-${n}.test.ts`),
    ],
    services: 'ZooKeeper (Debian zookeeper) and Java',
  },
};

/** The slice of a day: each in turn, one a day (UTC days since the epoch). */
export function sliceOfDay(now = Date.now()) {
  const names = Object.keys(SLICES);
  return names[Math.floor(now / 86_400_000) % names.length];
}
