import { setTimeout as sleep } from 'node:timers/promises';
import type { FateEvents } from './events.js';
import type { Workers } from './workers.js';

/**
 * Shutdown's wait for the pools: resolves once every worker returned. After `timeoutMs`
 * it warns and aborts their signals (releases then stop being retried), and still waits.
 */
export async function drainWorkers(
  workers: ReadonlyArray<Workers<unknown>>,
  timeoutMs: number,
  onEvent: <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => void,
): Promise<void> {
  const finished = Promise.all(workers.map((w) => w.done())).then(() => true);
  if (!(await Promise.race([finished, sleep(timeoutMs, false, { ref: false })]))) {
    onEvent('warning', {
      message: `shutdown: steps still running after ${timeoutMs} ms; their signals are aborted`,
      error: undefined,
    });
    for (const w of workers) w.abortAll(`shutdown ran out of time (${timeoutMs} ms)`, true);
    await finished;
  }
}
