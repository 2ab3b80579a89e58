import { setTimeout as sleep } from 'node:timers/promises';

/** The bound on every wait for a wake-up: not a speed claim, only "it came, not a poll". */
export const WAKE_MS = 1_000;
/** How long a write that must wake no one is watched for. */
export const QUIET_MS = 300;

/** Counts the calls of a listener; `until` waits (bounded) for the count to pass `n`. */
export function counter() {
  const c = {
    calls: 0,
    listener: () => {
      c.calls++;
    },
    async until(n: number, ms: number): Promise<number> {
      const started = performance.now();
      while (c.calls <= n) {
        if (performance.now() - started > ms) throw new Error(`no wake-up within ${ms} ms`);
        await sleep(2);
      }
      return performance.now() - started;
    },
  };
  return c;
}
