import { type EngineMutant, overriding, type RepoOverrides, repos } from './engine-mutant.js';

/** Promises 71–76: routing, partitions, signals, recovery, keyed seeding, idempotency check. */
export const schedulingMutants: readonly EngineMutant[] = [
  {
    name: 'pools-ignore-op',
    promise: 71,
    breaks:
      'the work finder routes every id as if it had no op: everything lands in the catch-all pool',
    hooks: {
      store: (store) =>
        overriding(store, {
          scanRunnable: async (range, options) => {
            const page = await store.scanRunnable(range, options);
            return { ...page, ops: page.ops.map(() => '') };
          },
        }),
    },
  },
  {
    name: 'partition-ignored',
    promise: 72,
    breaks:
      "the work finder scans (or claims from) the whole id space instead of its partition's range",
    hooks: {
      store: (store) =>
        overriding(store, {
          scanRunnable: (_range, options) => store.scanRunnable(undefined, options),
          claimRunnable: (_range, options) => store.claimRunnable(undefined, options),
        }),
    },
  },
  {
    name: 'signal-ignores-shutdown',
    promise: 73,
    breaks: "shutdown running out of time does not abort the steps' signals",
    hooks: { steps: repos({ call: filteredSignal(/shutdown/) }) },
  },
  {
    name: 'signal-ignores-lapse',
    promise: 73,
    breaks: "a lapse of the instance's liveness lease does not abort the steps' signals",
    hooks: { steps: repos({ call: filteredSignal(/lease/) }) },
  },
  {
    name: 'dead-holders-kept',
    promise: 74,
    breaks: "no engine clears a dead holder's reservations: its transactions are stuck",
    hooks: {
      store: (store) => overriding(store, { clearDeadReservations: async () => [] }),
    },
  },
  {
    name: 'orphans-kept',
    promise: 74,
    breaks: 'an engine never releases reservations stored under its lock id that it does not hold',
    hooks: { store: (store) => overriding(store, { releaseOrphans: async () => [] }) },
  },
  {
    name: 'seed-drops-key',
    promise: 75,
    breaks: 'seeding through the engine drops the key: one key makes two transactions',
    hooks: {
      store: (store) =>
        overriding(store, {
          seedMany: (requests) => store.seedMany(requests.map(({ key: _, ...request }) => request)),
        }),
    },
  },
  {
    name: 'seed-always-created',
    promise: 75,
    breaks: 'seeding through the engine says created: true also when the key existed',
    hooks: {
      store: (store) =>
        overriding(store, {
          seedMany: async (requests) =>
            (await store.seedMany(requests)).map((r) => ({ ...r, created: true })),
        }),
    },
  },
  {
    name: 'idempotency-check-ignored',
    promise: 76,
    breaks: 'idempotencyCheck is ignored: steps run once',
    hooks: { options: ({ idempotencyCheck: _, ...options }) => options },
  },
];

/**
 * A step call whose signal follows the engine's, except aborts whose reason matches
 * `dropped` (the engine's reasons name shutdown or the lease).
 */
function filteredSignal(dropped: RegExp): NonNullable<RepoOverrides['call']> {
  return async (repo, id, env, c) => {
    const ours = new AbortController();
    const follow = () => {
      const reason = c.signal.reason as Error | undefined;
      if (!dropped.test(String(reason?.message ?? reason))) ours.abort(c.signal.reason);
    };
    if (c.signal.aborted) follow();
    else c.signal.addEventListener('abort', follow, { once: true });
    try {
      return await repo.call(id, env, { ...c, signal: ours.signal });
    } finally {
      c.signal.removeEventListener('abort', follow);
    }
  };
}
