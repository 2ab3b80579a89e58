import { Status, type TxChange, type TxError } from '@fate/core';
import { type EngineMutant, handles, overriding, rewritingCommits } from './engine-mutant.js';

/** Promises 67–70: what a finished run records, auto-clean and age-off. */
export const finishMutants: readonly EngineMutant[] = [
  {
    name: 'error-not-recorded',
    promise: 67,
    breaks: "a failed step's error is not stored on the transaction",
    hooks: {
      store: handles({
        run: rewritingCommits((changes) =>
          changes.filter((c) => !(c.op === 'setInfo' && c.key === 'error')),
        ),
      }),
    },
  },
  {
    name: 'error-cause-dropped',
    promise: 67,
    breaks: "a failed step's error is stored without its cause chain",
    hooks: {
      store: handles({
        run: rewritingCommits((changes) =>
          changes.map((c): TxChange => {
            if (c.op !== 'setInfo' || c.key !== 'error' || !c.value) return c;
            const { cause: _, ...rest } = c.value as TxError;
            return { ...c, value: rest };
          }),
        ),
      }),
    },
  },
  {
    name: 'return-value-dropped',
    promise: 68,
    breaks: "the last step's return value is not stored",
    hooks: {
      store: handles({
        run: rewritingCommits((changes) =>
          changes.filter((c) => !(c.op === 'setInfo' && c.key === 'returnValue')),
        ),
      }),
    },
  },
  {
    name: 'success-without-status',
    promise: 68,
    breaks: 'a transaction whose last step returned is released without SUCCESSFUL: it runs again',
    hooks: {
      store: handles({
        run: rewritingCommits((changes) =>
          changes.filter((c) => !(c.op === 'setStatus' && c.status === Status.SUCCESSFUL)),
        ),
      }),
    },
  },
  {
    name: 'auto-clean-ignored',
    promise: 69,
    breaks: 'a finished transaction seeded with autoClean is kept',
    hooks: {
      store: handles({
        run: rewritingCommits((changes) =>
          changes.flatMap((c): TxChange[] =>
            c.op === 'delete'
              ? [{ op: 'setInfo', key: 'ageOff', value: Date.now() }, { op: 'unreserve' }]
              : [c],
          ),
        ),
      }),
    },
  },
  {
    name: 'auto-clean-always',
    promise: 69,
    breaks: 'every finished transaction is deleted, with or without autoClean',
    hooks: {
      store: handles({
        run: rewritingCommits((changes) => {
          const ends = changes.some(
            (c) =>
              c.op === 'setStatus' &&
              (c.status === Status.SUCCESSFUL || c.status === Status.FAILED),
          );
          if (!ends) return [...changes];
          return [
            ...changes.filter((c) => c.op !== 'unreserve' && c.op !== 'setInfo'),
            { op: 'delete' },
          ];
        }),
      }),
    },
  },
  {
    name: 'age-off-stamp-missing',
    promise: 70,
    breaks: 'a finished transaction is kept without its age-off stamp',
    hooks: {
      store: handles({
        run: rewritingCommits((changes) =>
          changes.filter((c) => !(c.op === 'setInfo' && c.key === 'ageOff')),
        ),
      }),
    },
  },
  {
    name: 'age-off-never',
    promise: 70,
    breaks: 'age-off never runs: finished transactions are kept forever',
    hooks: {
      store: (store) => overriding(store, { ageOff: async () => ({ stamped: 0, deleted: 0 }) }),
    },
  },
  {
    name: 'age-off-ignores-retention',
    promise: 70,
    breaks: "age-off deletes what finished without waiting for the engine's retention",
    hooks: {
      store: (store) =>
        overriding(store, { ageOff: (options) => store.ageOff({ ...options, retentionMs: 0 }) }),
    },
  },
];
