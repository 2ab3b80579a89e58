import type { AdminOps } from '@fate/conformance/simulation';
import { ALLOWED, Fate, FINISHED_STATUSES, STORED_STATUSES, Status } from '@fate/core';
import { changeReserved, readExisting } from '../src/admin/admin-command.js';
import { ADMIN_RESERVE_TIMEOUT_MS, adminForceDelete } from '../src/admin/holders.js';

/** The CLI's own admin commands' bodies (src/admin/*.ts), on a store the simulation owns. */
export const cliAdmin: AdminOps = {
  async cancel(store, id) {
    await readExisting(store, id);
    await new Fate({ store, env: undefined, steps: [] }).cancel(id, {
      timeoutMs: ADMIN_RESERVE_TIMEOUT_MS,
    });
  },
  delete: (store, id) => changeReserved(store, id, 'delete', ALLOWED.delete, (f) => f.delete()),
  forceDelete: (store, id) => adminForceDelete(store, id),
  fail: (store, id) =>
    changeReserved(
      store,
      id,
      'fail',
      new Set(STORED_STATUSES.filter((s) => !FINISHED_STATUSES.has(s))),
      (fate) =>
        fate.commit([
          {
            op: 'setInfo',
            key: 'error',
            value: { message: 'failed by admin', name: 'AdminFailure' },
          },
          { op: 'setStatus', status: Status.FAILED_IN_PROGRESS },
          { op: 'unreserve' },
        ]),
    ),
  async show(store, id) {
    await readExisting(store, id);
  },
};
