import { Fate, type FateId, type FatesStore, FINISHED_STATUSES, Status } from '@fate/core';

/** The admin operations a simulation runs, each on one transaction through `store`. */
export interface AdminOps {
  cancel(store: FatesStore, id: FateId): Promise<void>;
  fail(store: FatesStore, id: FateId): Promise<void>;
  delete(store: FatesStore, id: FateId): Promise<void>;
  forceDelete(store: FatesStore, id: FateId): Promise<void>;
  show(store: FatesStore, id: FateId): Promise<void>;
}

/** How long an admin operation waits for a holder, as the CLI's default `--wait`. */
export const ADMIN_WAIT_MS = 10_000;

/**
 * Admin operations through core's public API with the CLI's rules (`Fate.cancel`,
 * `Fate.delete`, `FatesStore.forceDelete`, and `fail` as the CLI does it: reserved, any
 * unfinished status → FAILED_IN_PROGRESS). `@fate/cli` cannot be a dependency of this
 * package (it depends on every store); its own admin functions are handed in by its tests.
 */
export const coreAdmin: AdminOps = {
  cancel: (store, id) =>
    new Fate({ store, env: undefined, steps: [] }).cancel(id, { timeoutMs: ADMIN_WAIT_MS }),
  delete: (store, id) =>
    new Fate({ store, env: undefined, steps: [] }).delete(id, { timeoutMs: ADMIN_WAIT_MS }),
  forceDelete: (store, id) => store.forceDelete(id, { timeoutMs: ADMIN_WAIT_MS }),
  async fail(store, id) {
    const fate = await store.reserve(id, { timeoutMs: ADMIN_WAIT_MS });
    try {
      const status = await fate.getStatus();
      if (FINISHED_STATUSES.has(status)) return;
      await fate.commit([
        {
          op: 'setInfo',
          key: 'error',
          value: { message: 'failed by admin', name: 'AdminFailure' },
        },
        { op: 'setStatus', status: Status.FAILED_IN_PROGRESS },
        { op: 'unreserve' },
      ]);
    } finally {
      if (fate.isReserved) await fate.unreserve();
    }
  },
  async show(store, id) {
    await store.read(id);
  },
};
