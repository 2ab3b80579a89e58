import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { createFatesStore, MemoryBackend } from '../src/index.js';

/** Blocks this thread (the event loop stalls, as on a loaded machine), ms. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    /* busy */
  }
}

it("lets a lapse timer of this process that is already due run before clearing its holder's reservation", async () => {
  const backend = new MemoryBackend();
  const holder = await createFatesStore(backend, { livenessTimeoutMs: 1_000 });
  const cleaner = await createFatesStore(backend, { livenessTimeoutMs: 1_000 });
  try {
    await holder.registerInstance();
    await cleaner.registerInstance();
    const id = await cleaner.create();
    await holder.reserve(id);
    const t0 = performance.now();
    expect(await cleaner.clearDeadReservations()).toEqual([]); // watched from now: live
    // the holder's own lease, shorter than the timeout, lapses before the verdict can come
    let lapsed = false;
    setTimeout(() => {
      lapsed = true;
    }, 950).unref();
    // the cleaner watches on (its beats flow, its observations continuous) until just
    // before the timeout, then the loop stalls past it: the lapse timer is due, not run
    while (performance.now() - t0 < 850) {
      await sleep(150);
      await cleaner.heartbeat();
      expect(await cleaner.clearDeadReservations()).toEqual([]);
    }
    stall(1_100 - (performance.now() - t0));
    expect(lapsed).toBe(false);
    const cleared = await cleaner.clearDeadReservations();
    expect(cleared.map((c) => c.id)).toEqual([id]);
    expect(lapsed).toBe(true); // the holder's lapse (its steps aborted) came first
  } finally {
    await holder.close();
    await cleaner.close();
  }
});
