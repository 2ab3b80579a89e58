// Issue 23: a claiming engine takes its share of a backlog by claims (one store call a
// batch), the rest by the sweep's pages (one reservation a transaction). Counted, not timed.
import { createFatesStore, Fate, type FatesStore, MemoryBackend, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { QuietStep } from './test-steps.js';

const TXS = 2_000;

/**
 * A memory backend whose writes answer a timer later, as a store over the network does: in
 * the meantime the workers are busy and the finder's rounds wait for one to be idle.
 */
class SlowWrites extends MemoryBackend {
  override async write(...args: Parameters<MemoryBackend['write']>): Promise<boolean> {
    await new Promise((r) => setTimeout(r, 1));
    return super.write(...args);
  }
}

/** `store` with its calls of `claimRunnable` and `tryReserve` counted. */
function counted(store: FatesStore) {
  const calls = { claimed: 0, claims: 0, reserves: 0 };
  const proxy = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key === 'claimRunnable') {
        return async (...args: Parameters<FatesStore['claimRunnable']>) => {
          const result = await target.claimRunnable(...args);
          calls.claims++;
          calls.claimed += result.claimed.length;
          return result;
        };
      }
      if (key === 'tryReserve') {
        return (...args: Parameters<FatesStore['tryReserve']>) => {
          calls.reserves++;
          return target.tryReserve(...args);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { proxy, calls };
}

describe('a claiming engine draining a backlog', () => {
  it('counts only the rounds that claimed toward its sweep turn, so claims take their share', async () => {
    const store = await createFatesStore(new SlowWrites());
    const { proxy, calls } = counted(store);
    const step = new QuietStep('noop');
    for (let i = 0; i < TXS; i += 500) {
      await store.seedMany(
        Array.from({ length: 500 }, () => ({ step: { type: 'noop', state: {} }, opName: 'op' })),
      );
    }
    const fate = new Fate({
      store: proxy,
      env: {},
      steps: [{ type: 'noop', fromState: () => step }],
      workers: 16,
    });
    try {
      await fate.start();
      const deadline = performance.now() + 30_000;
      for (;;) {
        const left = await store.scanRunnable(undefined, { limit: 1 });
        if (left.ids.length === 0 && (await store.reservations()).length === 0) break;
        if (performance.now() > deadline) throw new Error('the backlog did not drain in 30 s');
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await fate.shutdown();
    }
    expect((await store.list({ statuses: [Status.SUCCESSFUL] })).length).toBe(TXS);
    // every fourth claiming round of the finder reads a page of its sweep (the starvation
    // rule; a page is 64 ids, a claim here 16): 784 of 2,000 were claimed, against 459 when
    // rounds that only waited for an idle worker counted too
    expect(calls.claimed + calls.reserves).toBe(TXS);
    expect(calls.claimed, JSON.stringify(calls)).toBeGreaterThanOrEqual(TXS * 0.3);
    await store.close();
  });
});
