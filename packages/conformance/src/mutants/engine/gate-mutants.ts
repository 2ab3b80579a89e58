import { setTimeout as sleep } from 'node:timers/promises';
import { Status, type TxChange } from '@fate/core';
import { type EngineMutant, handles, repos, rewritingCommits } from './engine-mutant.js';

/**
 * Promises 77–79: what a failed step's status leaves to resume, what a run that began no call
 * gives back, and that no call begins once the holder's lease lapsed.
 */
export const gateMutants: readonly EngineMutant[] = [
  {
    name: 'fail-writes-failed',
    promise: 77,
    breaks:
      'a failed step records FAILED at once instead of FAILED_IN_PROGRESS: a rollback cut short is never resumed',
    hooks: {
      store: handles({
        run: rewritingCommits((changes) =>
          changes.some((c) => c.op === 'setInfo' && c.key === 'error')
            ? changes.map(
                (c): TxChange =>
                  c.op === 'setStatus' && c.status === Status.FAILED_IN_PROGRESS
                    ? { op: 'setStatus', status: Status.FAILED }
                    : c,
              )
            : [...changes],
        ),
      }),
    },
  },
  {
    name: 'unrun-kept-in-progress',
    promise: 78,
    breaks:
      'a run that lets go before any call began leaves the transaction IN_PROGRESS: it can no longer be cancelled',
    hooks: {
      store: handles({
        run: rewritingCommits((changes) => {
          const kept = changes.filter(
            (c) => !(c.op === 'setStatus' && c.status === Status.SUBMITTED),
          );
          return kept.length > 0 ? kept : [{ op: 'unreserve' }];
        }),
      }),
    },
  },
  {
    name: 'call-after-lapse',
    promise: 79,
    breaks:
      'the lease is judged before isReady only: a lapse while isReady is pending still lets the call begin',
    hooks: {
      // the runner's last check moved before a slow isReady: the wait is made inside `call`
      steps: (() => {
        const pending = new Map<string, Promise<number>>();
        return repos({
          async isReady(repo, id, env, c) {
            const ready = Promise.resolve(repo.isReady(id, env, c));
            const quick = await Promise.race([ready, sleep(0).then(() => undefined)]);
            if (quick !== undefined) return quick;
            pending.set(id, ready);
            return 0;
          },
          async call(repo, id, env, c) {
            const ready = pending.get(id);
            pending.delete(id);
            if (ready) await ready.catch(() => 0);
            return repo.call(id, env, c);
          },
        });
      })(),
    },
  },
];
