// Cluster-wide op limits (issue 25): the options, and slots against the memory store with
// its clock faked. Every backend runs the engine cases in @fate/conformance (engine/op-limits.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FlowMetrics } from '../src/engine/flow-metrics.js';
import { checkLimits, OpLimits, type Pass, slotId } from '../src/engine/op-limits.js';
import {
  createFatesStore,
  FateError,
  FateErrorCode,
  type FateId,
  type FatesStore,
  MemoryBackend,
  type RecordWrite,
  type Reservation,
  Status,
} from '../src/index.js';

afterEach(() => {
  vi.useRealTimers();
});

const step = { type: 'work', state: {} };

async function reserved(store: FatesStore, op: string) {
  const { id } = await store.seed({ step, opName: op });
  const fate = await store.tryReserve(id, { start: true });
  if (!fate) throw new Error('not reserved');
  return fate;
}

describe('op limits: options', () => {
  it('resolves slots and the spacing of each slot from concurrency and perSecond', () => {
    const l = checkLimits({
      a: { concurrency: 3 },
      b: { perSecond: 2.5 },
      c: { concurrency: 4, perSecond: 2 },
    });
    expect(l.get('a')).toEqual({ op: 'a', slots: 3, spacingMs: 0, holdForRun: true });
    expect(l.get('b')).toEqual({ op: 'b', slots: 3, spacingMs: 1_200, holdForRun: false });
    expect(l.get('c')).toEqual({ op: 'c', slots: 4, spacingMs: 2_000, holdForRun: true });
    expect(checkLimits(undefined).size).toBe(0);
  });

  it('refuses a limit without a bound, or with a bad one, with FATE_INVALID_ARGUMENT', () => {
    for (const bad of [
      {},
      { concurrency: 0 },
      { concurrency: 1.5 },
      { perSecond: 0 },
      { perSecond: Number.NaN },
      { concurrency: 1_001 },
      { perSecond: 1_000.5 },
    ]) {
      expect(() => checkLimits({ op: bad })).toThrow(
        expect.objectContaining({ name: 'TypeError', code: 'FATE_INVALID_ARGUMENT' }),
      );
    }
    // limits themselves that are not an object
    for (const bad of [null, 42, 'op']) {
      expect(() => checkLimits(bad as never)).toThrow(
        expect.objectContaining({
          code: 'FATE_INVALID_ARGUMENT',
          message: 'limits must be an object',
        }),
      );
    }
    // the largest bounds are allowed
    expect(checkLimits({ op: { concurrency: 1_000, perSecond: 1_000 } }).get('op')).toEqual({
      op: 'op',
      slots: 1_000,
      spacingMs: 1_000,
      holdForRun: true,
    });
  });
});

describe('op limits: slots in the store', () => {
  it('lets no more than `concurrency` runs hold a slot, and gives the next back SUBMITTED, deferred', async () => {
    const store = await createFatesStore(new MemoryBackend());
    const limits = new OpLimits(
      checkLimits({ op: { concurrency: 2 } }),
      store,
      new FlowMetrics(undefined, 't'),
    );
    const passes: Pass[] = [];
    for (let i = 0; i < 2; i++) {
      const pass = await limits.enter(await reserved(store, 'op'));
      if (!pass) throw new Error('no slot');
      passes.push(pass);
    }
    const third = await reserved(store, 'op');
    expect(await limits.enter(third)).toBeUndefined();
    const view = await store.read(third.id);
    expect(view.status).toBe(Status.SUBMITTED); // nothing ran: as it was before it was taken
    expect(view.reservation).toBeUndefined();
    expect(view.deferUntil).toBeGreaterThan(store.now());
    expect((await store.read(slotId('op', 0))).status).toBe(Status.NEW);
    await passes[0]?.leave();
    // a slot is free again: the next run takes it
    const fourth = await reserved(store, 'op');
    expect(await limits.enter(fourth)).toBeDefined();
    // an op without a limit passes at once
    expect(await limits.enter(await reserved(store, 'free'))).toBeDefined();
  });

  it('starts at most `perSecond` by the store clock, each slot deferred from its start', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    vi.setSystemTime(Date.UTC(2026, 0, 1));
    const store = await createFatesStore(new MemoryBackend());
    const limits = new OpLimits(
      checkLimits({ op: { perSecond: 2 } }),
      store,
      new FlowMetrics(undefined, 't'),
    );
    const outcome = async () =>
      (await limits.enter(await reserved(store, 'op'))) ? 'ran' : 'waits';
    expect([await outcome(), await outcome(), await outcome()]).toEqual(['ran', 'ran', 'waits']);
    vi.advanceTimersByTime(999);
    expect(await outcome()).toBe('waits');
    vi.advanceTimersByTime(1);
    expect([await outcome(), await outcome(), await outcome()]).toEqual(['ran', 'ran', 'waits']);
    // the deferral is the slot's own, stored: another engine sees it the same
    const other = new OpLimits(
      checkLimits({ op: { perSecond: 2 } }),
      store,
      new FlowMetrics(undefined, 'u'),
    );
    expect(await other.enter(await reserved(store, 'op'))).toBeUndefined();
  });

  it('skips a slot it deferred itself without asking the store', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'] });
    vi.setSystemTime(Date.UTC(2026, 0, 1));
    const store = await createFatesStore(new MemoryBackend());
    const asked: FateId[] = [];
    const tryReserve = store.tryReserve.bind(store);
    store.tryReserve = (id, options) => {
      asked.push(id);
      return tryReserve(id, options);
    };
    const limits = new OpLimits(
      checkLimits({ op: { perSecond: 1 } }),
      store,
      new FlowMetrics(undefined, 't'),
    );
    expect(await limits.enter(await reserved(store, 'op'))).toBeDefined();
    asked.length = 0;
    // its own slot, deferred by its own leave: known here, no round trip
    expect(await limits.enter(await reserved(store, 'op'))).toBeUndefined();
    expect(asked.filter((id) => id === slotId('op', 0))).toEqual([]);
  });

  it('gives a slot back after a release whose outcome was unknown, once it read the slot again', async () => {
    let failing = 0;
    class Flaky extends MemoryBackend {
      override async write(id: FateId, r: Reservation, change: RecordWrite): Promise<boolean> {
        if (id === slotId('op', 0) && failing > 0) {
          failing--;
          throw new FateError(FateErrorCode.STORE_UNAVAILABLE, 'no answer (before applying)');
        }
        return super.write(id, r, change);
      }
    }
    const store = await createFatesStore(new Flaky());
    const limits = new OpLimits(
      checkLimits({ op: { concurrency: 1 } }),
      store,
      new FlowMetrics(undefined, 't'),
    );
    const pass = await limits.enter(await reserved(store, 'op'));
    if (!pass) throw new Error('no slot');
    // every attempt of the first release goes unanswered: the handle's outcome is unknown
    failing = 4;
    await pass.leave();
    expect(failing).toBe(0);
    expect((await store.read(slotId('op', 0))).reservation).toBeUndefined();
    expect(await limits.enter(await reserved(store, 'op'))).toBeDefined();
  });
});
