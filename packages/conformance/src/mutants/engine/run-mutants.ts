import { setTimeout as sleep } from 'node:timers/promises';
import { type FateStore, type InfoKey, Status, type StepData, type TxInfo } from '@fate/core';
import { type EngineMutant, handles, overriding, repos } from './engine-mutant.js';

/** Promises 63–66: steps run once each, in order; deferral; undo order and completeness. */
export const runMutants: readonly EngineMutant[] = [
  {
    name: 'resume-reruns-previous-step',
    promise: 63,
    breaks: 'a run resumed on an IN_PROGRESS transaction starts from the step before its top',
    hooks: {
      store: handles({
        run: (handle) => {
          let first = true;
          return overriding<FateStore>(handle, {
            async top() {
              const stack = await handle.getStack();
              const resume = first && (await handle.getStatus()) === Status.IN_PROGRESS;
              first = false;
              return resume && stack.length > 1 ? stack.at(-2) : handle.top();
            },
          });
        },
      }),
    },
  },
  {
    name: 'call-runs-twice',
    promise: 63,
    breaks: 'every step is called twice per run, outside the idempotency check',
    hooks: {
      steps: repos({
        async call(repo, id, env, c) {
          await repo.call(id, env, c);
          return repo.call(id, env, c);
        },
      }),
    },
  },
  {
    name: 'deferral-not-stored',
    promise: 64,
    breaks: 'a step that is not ready is released without its deferral: it is taken again at once',
    hooks: {
      store: handles({
        run: (handle) => overriding<FateStore>(handle, { unreserve: () => handle.unreserve() }),
      }),
    },
  },
  {
    name: 'deferral-holds-worker',
    promise: 64,
    breaks: 'a step that is not ready keeps its worker and reservation for the wait',
    hooks: {
      store: handles({
        run: (handle) =>
          overriding<FateStore>(handle, {
            async unreserve(deferMs) {
              // waits up to 15 s in the worker, then releases with what is left of the wait
              const held = Math.min(deferMs ?? 0, 15_000);
              if (held > 0) await sleep(held);
              return handle.unreserve(deferMs ? Math.max(1, deferMs - held) : 0);
            },
          }),
      }),
    },
  },
  {
    name: 'undo-skipped',
    promise: 65,
    breaks: 'a failed transaction ends FAILED without undoing any step',
    hooks: {
      store: handles({
        run: (handle) => overriding<FateStore>(handle, { getStack: async () => [] }),
      }),
    },
  },
  {
    name: 'undo-oldest-first',
    promise: 65,
    breaks: 'the rollback undoes the oldest step first (it still pops newest first)',
    hooks: {
      store: handles({
        run: (handle) => {
          let stack: readonly StepData[] | undefined;
          return overriding<FateStore>(handle, {
            async top() {
              if ((await handle.getStatus()) !== Status.FAILED_IN_PROGRESS) return handle.top();
              stack ??= await handle.getStack();
              const left = (await handle.getStack()).length;
              return stack[stack.length - left];
            },
          });
        },
      }),
    },
  },
  {
    name: 'undo-skips-failed-step',
    promise: 65,
    breaks:
      'the step whose call threw is not undone, though its call may have done part of its work',
    hooks: {
      steps: (() => {
        const threw = new Set<string>();
        const key = (id: string, state: unknown) => `${id} ${JSON.stringify(state)}`;
        return repos({
          async call(repo, id, env, c) {
            try {
              return await repo.call(id, env, c);
            } catch (err) {
              threw.add(key(id, repo.state()));
              throw err;
            }
          },
          async undo(repo, id, env, c) {
            if (!threw.has(key(id, repo.state()))) await repo.undo(id, env, c);
          },
        });
      })(),
    },
  },
  {
    name: 'undo-stops-at-error',
    promise: 66,
    breaks: 'the rollback stops undoing after an undo threw (the transaction still ends FAILED)',
    hooks: {
      steps: (() => {
        const broken = new Set<string>();
        return repos({
          async undo(repo, id, env, c) {
            if (broken.has(id)) return;
            try {
              await repo.undo(id, env, c);
            } catch (err) {
              broken.add(id);
              throw err;
            }
          },
        });
      })(),
    },
  },
  {
    name: 'undo-errors-dropped',
    promise: 66,
    breaks: 'an undo that throws is not recorded in error.undoErrors',
    hooks: {
      store: handles({
        run: (handle) =>
          overriding<FateStore>(handle, {
            setInfo: (key, value) => handle.setInfo(key, withoutUndoErrors(key, value)),
          }),
      }),
    },
  },
];

function withoutUndoErrors<K extends InfoKey>(
  key: K,
  value: TxInfo[K] | undefined,
): TxInfo[K] | undefined {
  if (key !== 'error' || !value) return value;
  const { undoErrors: _, ...rest } = value as TxInfo['error'] & object;
  return rest as TxInfo[K];
}
