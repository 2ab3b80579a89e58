// waitForCompletion's shared poller (Completions) over a store whose answers each case sets,
// in fake time: how often it reads, what ends a wait, and what a read error does.
import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Completions } from '../src/engine/completions.js';
import {
  FateError,
  FateErrorCode,
  type FateId,
  type FatesStore,
  type FateView,
  newFateId,
  Status,
} from '../src/index.js';

/** A store whose `read` answers from `views` (IN_PROGRESS by default), counting reads. */
function fakeStore(readMs = 0) {
  const views = new Map<FateId, Partial<FateView>>();
  const reading = new Map<FateId, number>();
  const overlapped = new Set<FateId>();
  const failures = new Map<FateId, Error>();
  const reads: FateId[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const store = {
    read: async (id: FateId): Promise<FateView> => {
      reads.push(id);
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      if ((reading.get(id) ?? 0) > 0) overlapped.add(id);
      reading.set(id, (reading.get(id) ?? 0) + 1);
      await (readMs > 0 ? new Promise((r) => setTimeout(r, readMs)) : Promise.resolve());
      reading.set(id, (reading.get(id) ?? 0) - 1);
      inFlight--;
      const failure = failures.get(id);
      if (failure) throw failure;
      return { id, status: Status.IN_PROGRESS, info: {}, stack: [], ...views.get(id) } as FateView;
    },
  } as unknown as FatesStore;
  const peak = () => {
    const seen = mostInFlight;
    mostInFlight = 0;
    return seen;
  };
  return { store, views, failures, reads, peak, overlapped };
}

const outcome = (p: Promise<unknown>) =>
  p.then(
    (r) => ({ ok: r }),
    (e: unknown) => ({ err: (e as FateError).code ?? String(e) }),
  );

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Completions', () => {
  it('answers at once for a finished transaction, with its value or its error only when set', async () => {
    const s = fakeStore();
    const c = new Completions(s.store);
    const [a, b, gone] = [newFateId(), newFateId(), newFateId()];
    s.views.set(a, { status: Status.SUCCESSFUL, info: { returnValue: 7 } });
    s.views.set(b, { status: Status.FAILED, info: { error: { message: 'no' } } });
    s.views.set(gone, { status: Status.UNKNOWN }); // deleted: nothing more will happen to it
    expect(await c.wait(a)).toStrictEqual({ id: a, status: Status.SUCCESSFUL, returnValue: 7 });
    expect(await c.wait(b)).toStrictEqual({
      id: b,
      status: Status.FAILED,
      error: { message: 'no' },
    });
    expect(await c.wait(gone)).toStrictEqual({ id: gone, status: Status.UNKNOWN });
    expect(s.reads).toHaveLength(3);
    await expect(c.wait('not-an-id' as FateId)).rejects.toMatchObject({
      code: 'FATE_INVALID_ARGUMENT',
    });
  });

  it('reads after 10 ms, then twice as long each time up to 250 ms, and again quickly for a new waiter', async () => {
    const s = fakeStore();
    const c = new Completions(s.store);
    const id = newFateId();
    const waiting = c.wait(id);
    await vi.advanceTimersByTimeAsync(0);
    const readsAt: number[] = [];
    for (let t = 1; t <= 1_500; t++) {
      const before = s.reads.length;
      await vi.advanceTimersByTimeAsync(1);
      if (s.reads.length > before) readsAt.push(t);
    }
    // 10, +20, +40, +80, +160, then every 250
    expect(readsAt).toEqual([10, 30, 70, 150, 310, 560, 810, 1_060, 1_310]);
    const other = c.wait(newFateId());
    await vi.advanceTimersByTimeAsync(0);
    const before = s.reads.length;
    // the pending poll (due in 60 ms) stands, no second poller; after it, 20, 40, 80 ms apart
    await vi.advanceTimersByTimeAsync(250);
    expect(s.reads.length - before).toBe(8); // polls at +60, +80, +120, +200; both ids each
    s.views.set(id, { status: Status.SUCCESSFUL });
    await vi.advanceTimersByTimeAsync(110); // the poll at +360
    expect(await Promise.race([waiting, 'pending'])).toMatchObject({ status: Status.SUCCESSFUL });
    void other.catch(() => undefined);
  });

  it('resolves a transaction this engine finished at once, not at the next poll', async () => {
    const s = fakeStore();
    const c = new Completions(s.store);
    const id = newFateId();
    const waiting = outcome(c.wait(id));
    await vi.advanceTimersByTimeAsync(1_000); // the poll is now 250 ms apart
    s.views.set(id, { status: Status.SUCCESSFUL });
    const reads = s.reads.length;
    c.finished(id);
    c.finished(newFateId()); // nobody waits for it: no read
    await vi.advanceTimersByTimeAsync(0);
    expect(await waiting).toEqual({ ok: { id, status: Status.SUCCESSFUL } });
    expect(s.reads.length).toBe(reads + 1);
  });

  it('ends a wait on its timeout or its signal, and then reads that transaction no more', async () => {
    const s = fakeStore();
    const c = new Completions(s.store);
    const [slow, stopped] = [newFateId(), newFateId()];
    const timedOut = outcome(c.wait(slow, { timeoutMs: 100 }));
    const controller = new AbortController();
    const aborted = outcome(c.wait(stopped, { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(99);
    controller.abort();
    await vi.advanceTimersByTimeAsync(1);
    expect(await timedOut).toEqual({ err: 'FATE_TIMEOUT' });
    expect(await aborted).toEqual({ err: 'FATE_ABORTED' });
    const reads = s.reads.length;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(s.reads.length).toBe(reads);
    expect(vi.getTimerCount()).toBe(0);
    // already aborted: refused without waiting, unless it is already done
    const done = newFateId();
    s.views.set(done, { status: Status.SUCCESSFUL });
    expect(await outcome(c.wait(newFateId(), { signal: AbortSignal.abort() }))).toEqual({
      err: 'FATE_ABORTED',
    });
    expect(await c.wait(done, { signal: AbortSignal.abort() })).toMatchObject({ id: done });
  });

  it('keeps the other waiters of a transaction when one of them stops waiting', async () => {
    const s = fakeStore();
    const c = new Completions(s.store);
    const id = newFateId();
    const controller = new AbortController();
    const leaving = outcome(c.wait(id, { signal: controller.signal }));
    const staying = outcome(c.wait(id));
    await vi.advanceTimersByTimeAsync(20);
    controller.abort();
    expect(await leaving).toEqual({ err: 'FATE_ABORTED' });
    s.views.set(id, { status: Status.SUCCESSFUL });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await staying).toMatchObject({ ok: { id, status: Status.SUCCESSFUL } });
  });

  it('ignores a read that comes back after its only waiter left, finished or failed', async () => {
    const [done, broken] = [newFateId(), newFateId()];
    const reads: FateId[] = [];
    let answer: () => void = () => undefined;
    const answered = new Promise<void>((r) => {
      answer = r;
    });
    const store = {
      read: async (id: FateId): Promise<FateView> => {
        reads.push(id);
        // each wait's own first read: still running; the poll's reads: held, then done or broken
        if (reads.filter((r) => r === id).length > 1) {
          await answered;
          if (id === broken) throw new TypeError('a corrupt record');
          return { id, status: Status.SUCCESSFUL, info: {}, stack: [] } as unknown as FateView;
        }
        return { id, status: Status.IN_PROGRESS, info: {}, stack: [] } as unknown as FateView;
      },
    } as unknown as FatesStore;
    const c = new Completions(store);
    const controller = new AbortController();
    const waits = [done, broken].map((id) => outcome(c.wait(id, { signal: controller.signal })));
    await vi.advanceTimersByTimeAsync(30); // the first poll (at 10 ms) is reading both
    expect(reads).toEqual([done, broken, done, broken]);
    controller.abort();
    expect(await Promise.all(waits)).toEqual([{ err: 'FATE_ABORTED' }, { err: 'FATE_ABORTED' }]);
    // the reads answer now, with nobody waiting: nothing is thrown, nothing polls again
    answer();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(reads).toHaveLength(4);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('says in a timeout how far the transaction had got', async () => {
    const s = fakeStore();
    const c = new Completions(s.store);
    const id = newFateId();
    s.views.set(id, { status: Status.SUBMITTED });
    const waiting = c.wait(id, { timeoutMs: 50 }).catch((e: Error) => e.message);
    await vi.advanceTimersByTimeAsync(50);
    expect(await waiting).toBe(`${id} did not finish in 50 ms (SUBMITTED)`);
  });

  it('keeps waiting through an unavailable store, and passes any other read error on', async () => {
    const s = fakeStore();
    const c = new Completions(s.store);
    const [away, broken] = [newFateId(), newFateId()];
    const waitingAway = outcome(c.wait(away));
    const waitingBroken = outcome(c.wait(broken));
    await vi.advanceTimersByTimeAsync(0);
    s.failures.set(away, new FateError(FateErrorCode.STORE_UNAVAILABLE, 'away'));
    s.failures.set(broken, new FateError(FateErrorCode.CORRUPT_DATA, 'garbled'));
    await vi.advanceTimersByTimeAsync(10);
    expect(await waitingBroken).toEqual({ err: 'FATE_CORRUPT_DATA' });
    await vi.advanceTimersByTimeAsync(500);
    s.failures.delete(away);
    s.views.set(away, { status: Status.FAILED });
    await vi.advanceTimersByTimeAsync(250);
    expect(await waitingAway).toEqual({ ok: { id: away, status: Status.FAILED } });
  });

  it('reads at most 32 awaited transactions at once', async () => {
    const s = fakeStore();
    const c = new Completions(s.store);
    const ids = Array.from({ length: 70 }, () => newFateId());
    const waits = ids.map((id) => outcome(c.wait(id)));
    await vi.advanceTimersByTimeAsync(0);
    expect(s.peak()).toBe(70); // the first read of each wait is its caller's own
    for (const id of ids) s.views.set(id, { status: Status.SUCCESSFUL });
    const reads = s.reads.length;
    await vi.advanceTimersByTimeAsync(10);
    expect(s.peak()).toBe(32);
    expect(s.reads.length - reads).toBe(70);
    expect((await Promise.all(waits)).every((w) => 'ok' in w)).toBe(true);
  });

  it('polls with one poller, even when a wait begins while a poll is reading', async () => {
    const s = fakeStore(100);
    const c = new Completions(s.store);
    const first = newFateId();
    void c.wait(first).catch(() => undefined);
    await vi.advanceTimersByTimeAsync(150); // its own read ends at 100; the poll reads from 110
    void c.wait(newFateId()).catch(() => undefined);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(s.overlapped.has(first)).toBe(false);
  });

  it('leaves no timer, no listener and nothing holding the process once a wait ends', async () => {
    const s = fakeStore();
    const c = new Completions(s.store);
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const id = newFateId();
    const controller = new AbortController();
    const waiting = c.wait(id, { timeoutMs: 60_000, signal: controller.signal });
    await vi.advanceTimersByTimeAsync(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(10);
    // the poll's timer does not keep the process alive (the caller's timeout does)
    const timers = setTimeoutSpy.mock.results.map((r) => r.value as { hasRef(): boolean });
    expect(timers.map((t) => t.hasRef())).toEqual([true, false, false]);
    s.views.set(id, { status: Status.SUCCESSFUL });
    await vi.advanceTimersByTimeAsync(20);
    expect(await waiting).toStrictEqual({ id, status: Status.SUCCESSFUL });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
