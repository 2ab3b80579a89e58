import {
  createFatesStore,
  type FateId,
  type FatesStore,
  type StepData,
  type StoreBackend,
  type StoreOptions,
} from '@fate/core';
import { afterEach, beforeEach } from 'vitest';
import { FaultyBackend } from '../faults/faulty-backend.js';
import type { ConformanceTarget, StoreFixture } from '../fixture.js';
import { eventually, mapLimit } from '../util.js';

export { eventually, mapLimit } from '../util.js';

/** Per-test state: a fresh fixture, a first client, and more clients on demand. */
export interface SuiteContext {
  fixture: StoreFixture;
  /** The first client. */
  store: FatesStore;
  /** Opens another client on the same data; closed after the test. */
  client(options?: StoreOptions): Promise<FatesStore>;
  /** Opens a client whose backend injects the faults a case asks `faults` for. */
  faultyClient(options?: StoreOptions): Promise<{ store: FatesStore; faults: FaultyBackend }>;
}

/** Opens a client on a fixture's data. */
export function openClient(fixture: StoreFixture, options?: StoreOptions): Promise<FatesStore> {
  return fixture.open ? fixture.open(options) : createFatesStore(fixture.backend(), options);
}

/** Gives every test of the enclosing `describe` a fresh, isolated fixture. */
export function useFixture(target: ConformanceTarget): SuiteContext {
  let clients: FatesStore[] = [];
  // The fixture this test made; none when an outer hook skipped the test before it was made.
  let made: StoreFixture | undefined;
  const ctx = {
    async client(options?: StoreOptions) {
      const c = await openClient(ctx.fixture, options);
      clients.push(c);
      return c;
    },
    async faultyClient(options?: StoreOptions) {
      const faults = new FaultyBackend(ctx.fixture.backend());
      const store = await createFatesStore(faults, options);
      clients.push(store);
      return { store, faults };
    },
  } as SuiteContext;
  beforeEach(async () => {
    made = await target.factory();
    ctx.fixture = made;
    ctx.store = await ctx.client();
  });
  afterEach(async () => {
    const open = clients;
    clients = [];
    await Promise.allSettled(open.map((c) => c.close()));
    const fixture = made;
    made = undefined;
    await fixture?.destroy();
  });
  return ctx;
}

/**
 * Opens a raw backend on the fixture's data for `use` and closes it after: for cases that
 * test a backend promise the guard hides (what a call answers, what a write keeps).
 */
export async function withBackend<T>(
  fixture: StoreFixture,
  use: (backend: StoreBackend) => Promise<T>,
): Promise<T> {
  const backend = fixture.backend();
  await backend.open();
  try {
    return await use(backend);
  } finally {
    await backend.close();
  }
}

export const step = (type = 'step', state: StepData['state'] = {}): StepData => ({ type, state });

/** Seeds `n` transactions, `parallel` at a time. */
export async function seedMany(store: FatesStore, n: number, parallel = 50): Promise<FateId[]> {
  return mapLimit(
    Array.from({ length: n }, (_, i) => i),
    parallel,
    async (i) => {
      const { id } = await store.seed({ step: step('s', i), opName: 'op' });
      return id;
    },
  );
}

/**
 * Clears dead reservations until `holder`'s (one, in the cases that use this) is cleared,
 * within 5 s; returns every id cleared meanwhile. One call may rightly clear nothing while
 * the holder is dead: a client that went more than half its liveness timeout between two
 * looks at the liveness records (a loaded machine, a slow listing) gives every holder a
 * full timeout again rather than trust a stale view (`LeaseObserver`). So a case asks for
 * the clearing to happen, not for one call to do it.
 */
export async function clearedWhenDead(store: FatesStore, holder: FatesStore): Promise<FateId[]> {
  const cleared: FateId[] = [];
  await eventually(
    `the reservation of ${holder.lockId} is cleared as dead`,
    async () => {
      for (const c of await store.clearDeadReservations()) cleared.push(c.id);
      return cleared.length > 0;
    },
    5_000,
  );
  return cleared;
}

/** Catches the rejection of `p` (fails the test if it resolves). */
export async function rejection(p: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await p;
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error('expected a rejection, but the call succeeded');
}
