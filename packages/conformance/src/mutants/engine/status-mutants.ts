import { type FateStore, Status, type TxChange } from '@fate/core';
import { type EngineMutant, handles, overriding, rewritingCommits } from './engine-mutant.js';

/** Promises 61–62: what `cancel` and `delete` accept, and what a cancel leaves. */
export const statusMutants: readonly EngineMutant[] = [
  {
    name: 'cancel-any-status',
    promise: 61,
    breaks: 'cancel does not check the status: a transaction that ran steps is cancelled too',
    hooks: {
      store: (store) => {
        const client = (handle: FateStore) =>
          overriding<FateStore>(handle, {
            getStatus: async () => asSubmitted(await handle.getStatus()),
          });
        const wrapped = handles({ client })(store);
        return overriding(wrapped, {
          read: async (id) => {
            const view = await store.read(id);
            return { ...view, status: asSubmitted(view.status) };
          },
        });
      },
    },
  },
  {
    name: 'cancel-keeps-status',
    promise: 61,
    breaks: 'cancel records its error but leaves the status as it was: the transaction runs',
    hooks: {
      store: handles({
        client: rewritingCommits((changes) =>
          changes.filter((c) => !(c.op === 'setStatus' && c.status === Status.FAILED)),
        ),
      }),
    },
  },
  {
    name: 'cancel-rolls-back',
    promise: 61,
    breaks: 'cancel sets FAILED_IN_PROGRESS, so an engine undoes a step that never ran',
    hooks: {
      store: handles({
        client: rewritingCommits((changes) =>
          changes.map(
            (c): TxChange =>
              c.op === 'setStatus' && c.status === Status.FAILED
                ? { op: 'setStatus', status: Status.FAILED_IN_PROGRESS }
                : c,
          ),
        ),
      }),
    },
  },
  {
    name: 'delete-any-status',
    promise: 62,
    breaks:
      'delete force-deletes whatever the status, also a transaction in the middle of its steps',
    hooks: {
      store: handles({
        client: (handle) => overriding<FateStore>(handle, { delete: () => handle.forceDelete() }),
      }),
    },
  },
];

/** IN_PROGRESS as the cancel check would want it. */
function asSubmitted(status: Status): Status {
  return status === Status.IN_PROGRESS ? Status.SUBMITTED : status;
}
