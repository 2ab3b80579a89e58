// Virtual time for engine tests (@sinonjs/fake-timers, with `node:timers/promises` following
// it, as the simulation does): timings are then the same on a loaded machine as on a quiet one.
import { syncBuiltinESMExports } from 'node:module';
import FakeTimers from '@sinonjs/fake-timers';

/** Installs virtual time; `restore()` puts the real timers back. */
export function virtualTime() {
  const clock = FakeTimers.install({
    toFake: [
      'setTimeout',
      'clearTimeout',
      'setInterval',
      'clearInterval',
      'setImmediate',
      'clearImmediate',
      'Date',
      'performance',
    ],
    shouldClearNativeTimers: false,
  });
  syncBuiltinESMExports();
  return {
    clock,
    /** Moves virtual time on 1 ms at a time until `done()`, failing after `ms` of it. */
    async until(what: string, done: () => boolean, ms = 10_000): Promise<void> {
      for (const end = performance.now() + ms; !done(); await clock.tickAsync(1)) {
        if (performance.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
      }
    },
    restore(): void {
      clock.uninstall();
      syncBuiltinESMExports();
    },
  };
}
