import { Status } from '@fate/core';
import { forwarding, rewrite } from './forwarding.js';
import type { BackendMutant } from './mutant.js';

/** insert, insertMany, read, list and wake-ups (promises 3, 4, 19, 21, 22, 27, 33). */
export const recordMutants: readonly BackendMutant[] = [
  {
    name: 'insert-overwrites',
    promise: 19,
    breaks: 'insert of an existing id overwrites its status, stack and info, and answers false',
    wrap: (inner) =>
      forwarding(inner, {
        async insert(id, record) {
          if (await inner.insert(id, record)) return true;
          const { status, stack, info } = record;
          await rewrite(inner, id, (_s, r) => inner.write(id, r, { status, stack, info }));
          return false;
        },
      }),
  },
  {
    name: 'insert-existing-answers-true',
    promise: 19,
    breaks: 'insert of an existing id leaves it alone but answers true',
    wrap: (inner) =>
      forwarding(inner, {
        insert: async (id, record) => (await inner.insert(id, record)) || true,
      }),
  },
  {
    name: 'insert-deferred',
    promise: 3,
    breaks: 'a new record starts deferred by an hour (a column default)',
    wrap: (inner) =>
      forwarding(inner, {
        async insert(id, record) {
          if (!(await inner.insert(id, record))) return false;
          await rewrite(inner, id, (_s, r) => inner.write(id, r, { release: { deferMs: 3.6e6 } }));
          return true;
        },
      }),
  },
  {
    name: 'insert-ignores-defer',
    promise: 4,
    breaks: "an insert drops the new record's deferMs: a deferred seed is runnable at once",
    wrap: (inner) =>
      forwarding(inner, {
        insert: (id, { deferMs: _, ...record }) => inner.insert(id, record),
        insertMany: (records) =>
          inner.insertMany(
            records.map(({ id, record: { deferMs: _, ...record } }) => ({ id, record })),
          ),
      }),
  },
  {
    name: 'insert-many-answers-reversed',
    promise: 21,
    breaks: 'insertMany answers in reverse order',
    wrap: (inner) =>
      forwarding(inner, {
        insertMany: async (records) => (await inner.insertMany(records)).reverse(),
      }),
  },
  {
    name: 'insert-many-all-or-nothing',
    promise: 21,
    breaks: 'insertMany inserts nothing when one of the ids exists',
    wrap: (inner) =>
      forwarding(inner, {
        async insertMany(records) {
          const found = await Promise.all(records.map(({ id }) => inner.read(id)));
          if (found.some((r) => r !== undefined)) return records.map(() => false);
          return inner.insertMany(records);
        },
      }),
  },
  {
    name: 'insert-many-drops-last',
    promise: 21,
    breaks: 'insertMany never stores the last record, and answers true for it',
    wrap: (inner) =>
      forwarding(inner, {
        async insertMany(records) {
          if (records.length < 2) return inner.insertMany(records);
          return [...(await inner.insertMany(records.slice(0, -1))), true];
        },
      }),
  },
  {
    name: 'insert-many-no-wakeup',
    promise: 33,
    requires: 'wakeups',
    breaks: 'insertMany publishes no wake-up (only insert does)',
    needs: 'the wake-up to reach listeners while insertMany runs, as the memory backend does',
    wrap: (inner, shared) =>
      forwarding(inner, {
        async insertMany(records) {
          shared.muted++;
          try {
            return await inner.insertMany(records);
          } finally {
            shared.muted--;
          }
        },
        subscribeWakeups: (listener) =>
          inner.subscribeWakeups(() => {
            if (shared.muted === 0) listener();
          }),
      }),
  },
  {
    name: 'wakeups-never',
    promise: 33,
    requires: 'wakeups',
    breaks: 'wake-ups are declared but never delivered',
    wrap: (inner) => forwarding(inner, { subscribeWakeups: async () => async () => {} }),
  },
  {
    name: 'wakeups-unsubscribe-ignored',
    promise: 33,
    requires: 'wakeups',
    breaks: 'unsubscribing from wake-ups does nothing',
    wrap: (inner) =>
      forwarding(inner, {
        async subscribeWakeups(listener) {
          await inner.subscribeWakeups(listener);
          return async () => {};
        },
      }),
  },
  {
    name: 'records-over-1mib-refused',
    promise: 34,
    breaks: 'a record over 1 MiB is refused although the backend declares more',
    wrap: (inner) => {
      const check = (stack?: string, info?: string) => {
        const size = Buffer.byteLength(stack ?? '') + Buffer.byteLength(info ?? '');
        if (size > 1024 * 1024) throw new Error(`mutant: ${size} bytes is over 1 MiB`);
      };
      return forwarding(inner, {
        async insert(id, record) {
          check(record.stack, record.info);
          return inner.insert(id, record);
        },
        async insertMany(records) {
          for (const { record } of records) check(record.stack, record.info);
          return inner.insertMany(records);
        },
        async write(id, r, c) {
          check(c.stack, c.info);
          return inner.write(id, r, c);
        },
      });
    },
  },
  {
    name: 'read-drops-reservation',
    promise: 22,
    breaks: 'read answers every record as unreserved',
    wrap: (inner) =>
      forwarding(inner, {
        async read(id) {
          const got = await inner.read(id);
          return got && { ...got, reservation: null };
        },
      }),
  },
  {
    name: 'read-drops-deferral',
    promise: 22,
    breaks: 'read answers deferUntil 0',
    wrap: (inner) =>
      forwarding(inner, {
        async read(id) {
          const got = await inner.read(id);
          return got && { ...got, deferUntil: 0 };
        },
      }),
  },
  {
    name: 'list-drops-deferral',
    promise: 27,
    breaks: 'list answers every record with deferUntil 0',
    wrap: (inner) =>
      forwarding(inner, {
        list: async (statuses) =>
          (await inner.list(statuses)).map(({ id, record }) => ({
            id,
            record: { ...record, deferUntil: 0 },
          })),
      }),
  },
  {
    name: 'list-drops-reservation',
    promise: 27,
    breaks: 'list answers every record as unreserved',
    wrap: (inner) =>
      forwarding(inner, {
        list: async (statuses) =>
          (await inner.list(statuses)).map(({ id, record }) => ({
            id,
            record: { ...record, reservation: null },
          })),
      }),
  },
  {
    name: 'list-filter-drops-failed-in-progress',
    promise: 27,
    breaks: 'list with statuses never returns FAILED_IN_PROGRESS records',
    wrap: (inner) =>
      forwarding(inner, {
        list: async (statuses) =>
          (await inner.list(statuses)).filter(
            ({ record }) => !statuses || record.status !== Status.FAILED_IN_PROGRESS,
          ),
      }),
  },
];
