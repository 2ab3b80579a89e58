import { syncBuiltinESMExports } from 'node:module';
import FakeTimers from '@sinonjs/fake-timers';
import { expect, it } from 'vitest';
import { createFatesStore, type FateId, MemoryBackend, type Reservation } from '../src/index.js';

/** A memory backend that notes each reservation it clears in `events`. */
class NotingBackend extends MemoryBackend {
  constructor(private readonly events: string[]) {
    super();
  }
  override async clearReservation(id: FateId, reservation: Reservation): Promise<boolean> {
    const cleared = await super.clearReservation(id, reservation);
    if (cleared) this.events.push('cleared');
    return cleared;
  }
}

// In virtual time (@sinonjs/fake-timers, `node:timers/promises` included through
// syncBuiltinESMExports, as the simulation does): a stalled event loop is the clock moved on
// with no timer run, so the case is the same on a loaded machine as on a quiet one.
it("lets a lapse timer of this process that is already due run before clearing its holder's reservation", async () => {
  const clock = FakeTimers.install({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
    shouldClearNativeTimers: false,
  });
  syncBuiltinESMExports();
  const events: string[] = [];
  const backend = new NotingBackend(events);
  const holder = await createFatesStore(backend, { livenessTimeoutMs: 1_000 });
  const cleaner = await createFatesStore(backend, { livenessTimeoutMs: 1_000 });
  try {
    await holder.registerInstance();
    await cleaner.registerInstance();
    const id = await cleaner.create();
    await holder.reserve(id);
    const t0 = performance.now();
    expect(await cleaner.clearDeadReservations()).toEqual([]); // watched from now: live
    // the cleaner watches on (its beats flow, its observations continuous) until just
    // before the timeout, then the loop stalls past it
    while (performance.now() - t0 < 850) {
      await clock.tickAsync(150);
      await cleaner.heartbeat();
      expect(await cleaner.clearDeadReservations()).toEqual([]);
    }
    clock.now += 1_100 - (performance.now() - t0); // the stall: time passes, no timer runs
    // the holder's own lease, shorter than the timeout, lapsed during the stall: its timer
    // is due and not run yet (fake timers never run a timer due before `now` moved on, so
    // it is armed due now: the same place in Node's order of due timers)
    setTimeout(() => events.push('lapsed'), 0);
    const clearing = cleaner.clearDeadReservations();
    await clock.tickAsync(1);
    expect((await clearing).map((c) => c.id)).toEqual([id]);
    expect(events).toEqual(['lapsed', 'cleared']); // the holder's lapse came first
  } finally {
    clock.uninstall();
    syncBuiltinESMExports();
    await holder.close();
    await cleaner.close();
  }
});
