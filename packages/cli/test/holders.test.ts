import { FateErrorCode, type FateId, type FatesStore, openStore } from '@fate/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adminReserve } from '../src/admin/holders.js';

// The admin reserve loop on a record that goes away, or is taken and let go again and
// again, between its attempt and its read: it must end (not found, or the deadline) and
// never loop without pausing. A proxy counts the store calls and stops a hot loop itself,
// since a loop of resolved promises would starve the test's own timer.

const LIMIT = 500;

function counted(store: FatesStore): { store: FatesStore; calls: () => number } {
  let calls = 0;
  const proxy = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (++calls > LIMIT) throw new Error(`hot loop: over ${LIMIT} store calls`);
        return value.apply(target, args);
      };
    },
  });
  return { store: proxy, calls: () => calls };
}

describe('adminReserve', () => {
  let store: FatesStore;
  beforeEach(async () => {
    store = await openStore('memory:');
  });
  afterEach(() => store.close());

  it('ends with FATE_NOT_FOUND when the record was deleted before it could be reserved', async () => {
    const { id } = await store.seed({ step: { type: 's', state: null }, opName: 'op' });
    const handle = await store.tryReserve(id);
    await handle?.delete();
    const c = counted(store);
    await expect(adminReserve(c.store, id, 2_000)).rejects.toMatchObject({
      code: FateErrorCode.NOT_FOUND,
    });
    expect(c.calls()).toBeLessThan(10);
  });

  it('pauses between turns while others keep taking it, and ends at its deadline', async () => {
    const { id } = await store.seed({ step: { type: 's', state: null }, opName: 'op' });
    // another client takes it and lets go at once, every time this one looks
    const c = counted(store);
    const flaky = new Proxy(c.store, {
      get(target, key, receiver) {
        if (key === 'tryReserve') return async () => undefined; // someone else won
        if (key === 'read') return async (x: FateId) => target.read(x); // unreserved again
        return Reflect.get(target, key, receiver);
      },
    });
    const started = performance.now();
    await expect(adminReserve(flaky, id, 300)).rejects.toMatchObject({
      code: FateErrorCode.TIMEOUT,
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    // pauses of 10, 20, 40, 80, 100 ms…: a handful of turns in 300 ms, not thousands
    expect(c.calls()).toBeLessThan(40);
  });
});
