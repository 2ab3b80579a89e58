import { describe, expect, it } from 'vitest';
import { cancel, deleteTransaction } from '../src/engine/client-calls.js';
import {
  createFatesStore,
  type FateId,
  type FatesStore,
  type JsonValue,
  MemoryBackend,
  Status,
} from '../src/index.js';
import { noopFate, QuietStep } from './test-steps.js';

describe('bad seeds through the engine', () => {
  it('refuses a missing request, a non-step and a non-JSON state with FATE_INVALID_ARGUMENT', async () => {
    const store = await createFatesStore(new MemoryBackend());
    const fate = noopFate(store);
    // a state JSON would change (a Date) is refused, not silently altered
    const dated = new QuietStep('noop', { when: new Date(0) } as unknown as JsonValue);
    try {
      for (const call of [
        () => fate.seed(null as never, { opName: 'op' }),
        () => fate.seed(42 as never, { opName: 'op' }),
        () => fate.seed(new QuietStep('noop'), null as never),
        () => fate.seedMany([null as never]),
        () => fate.seedMany(['op' as never]),
        () => fate.seed(dated, { opName: 'op' }),
        () => store.seed(null as never),
        () => store.seed('x' as never),
      ]) {
        await expect(call()).rejects.toMatchObject({ code: 'FATE_INVALID_ARGUMENT' });
      }
      expect(await store.list()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe('an admin call refused after it reserved', () => {
  /** `store`, whose `reserve` first lets `race` change the record (between read and reserve). */
  function racing(store: FatesStore, race: () => Promise<void>): FatesStore {
    return new Proxy(store, {
      get(target, key) {
        if (key === 'reserve') {
          return async (...args: Parameters<FatesStore['reserve']>) => {
            await race();
            return target.reserve(...args);
          };
        }
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  it('lets the record go deferred as long as it still was, or not deferred when it was not', async () => {
    const backend = new MemoryBackend();
    const store = await createFatesStore(backend);
    const engine = await createFatesStore(backend);
    try {
      const step = { type: 'noop', state: null };
      // an engine starts it and defers it for a minute, after cancel read it SUBMITTED
      const deferred = (await store.seed({ step, opName: 'op' })).id;
      const deferring = racing(store, async () => {
        await (await engine.tryReserve(deferred, { start: true }))?.unreserve(60_000);
      });
      await expect(cancel(deferring, deferred, {})).rejects.toMatchObject({
        code: 'FATE_ILLEGAL_STATUS',
      });
      const kept = await store.read(deferred);
      expect(kept.reservation).toBeUndefined();
      expect(kept.status).toBe(Status.IN_PROGRESS);
      expect(kept.deferUntil - store.now()).toBeGreaterThan(59_000);
      expect(kept.deferUntil - store.now()).toBeLessThanOrEqual(60_000);
      // started and let go at once: refused the same way, and runnable at once
      const started = (await store.seed({ step, opName: 'op' })).id;
      const starting = racing(store, async () => {
        await (await engine.tryReserve(started, { start: true }))?.unreserve();
      });
      await expect(cancel(starting, started, {})).rejects.toMatchObject({
        code: 'FATE_ILLEGAL_STATUS',
      });
      const runnable = await store.read(started);
      expect(runnable.reservation).toBeUndefined();
      expect(runnable.deferUntil).toBeLessThanOrEqual(store.now());
    } finally {
      await Promise.all([store.close(), engine.close()]);
    }
  });
});

describe('cancel and delete: what they answer and what they leave', () => {
  const step = { type: 'noop', state: null };

  it('names a missing transaction NOT_FOUND, and gives back one delete refused', async () => {
    const store = await createFatesStore(new MemoryBackend());
    try {
      const missing = (await store.create()).replace(/.$/, (c) => (c === '0' ? '1' : '0'));
      await expect(cancel(store, missing as FateId, {})).rejects.toMatchObject({
        code: 'FATE_NOT_FOUND',
      });
      // running: delete refuses it, and the record is unreserved again as it was
      const { id } = await store.seed({ step, opName: 'op' });
      await (await store.tryReserve(id, { start: true }))?.unreserve();
      await expect(deleteTransaction(store, id, {})).rejects.toMatchObject({
        code: 'FATE_ILLEGAL_STATUS',
      });
      const kept = await store.read(id);
      expect([kept.status, kept.reservation]).toEqual([Status.IN_PROGRESS, undefined]);
      // a delete that succeeds leaves nothing to give back
      const { id: done } = await store.seed({ step, opName: 'op' });
      await deleteTransaction(store, done, {});
      expect((await store.read(done)).status).toBe(Status.UNKNOWN);
    } finally {
      await store.close();
    }
  });

  it("waits for a held transaction no longer than the caller's timeout or signal", async () => {
    const store = await createFatesStore(new MemoryBackend());
    try {
      const { id } = await store.seed({ step, opName: 'op' });
      const holder = await store.reserve(id);
      for (const call of [cancel, deleteTransaction]) {
        // a default wait of 10 s would outlast this case's 5 s
        await expect(call(store, id, { timeoutMs: 50 })).rejects.toMatchObject({
          code: 'FATE_TIMEOUT',
        });
        const aborted = AbortSignal.abort();
        await expect(call(store, id, { signal: aborted, timeoutMs: 60_000 })).rejects.toThrow();
      }
      await holder.unreserve();
    } finally {
      await store.close();
    }
  }, 5_000);

  it('seeds through the engine with the priority, delay and retention asked for', async () => {
    const store = await createFatesStore(new MemoryBackend());
    const fate = noopFate(store);
    try {
      const [seeded] = await fate.seedMany([
        { step: new QuietStep('noop'), opName: 'op', priority: 3, delayMs: 60_000, retainMs: 5 },
      ]);
      const view = await store.read(seeded?.id as FateId);
      expect(view.priority).toBe(3);
      expect(view.deferUntil).toBeGreaterThan(store.now() + 50_000);
      expect(view.info.retainMs).toBe(5);
    } finally {
      await store.close();
    }
  });
});
