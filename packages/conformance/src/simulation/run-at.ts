import type { SimEvent } from './history.js';

/**
 * (10) A seed's `runAt` (issue 25): no call of a transaction seeded with one began before it
 * was due (ms after the run began; the store's clock and the history's run together in
 * virtual time, and in real time a deferral is counted from `store.now()`, this client's
 * estimate: `slackMs` allows for it). Judged in history order from the seed's answer until
 * the id is inserted again (a keyed seed after a delete is a new transaction, due when its
 * own seed says).
 */
export function checkRunAt(events: readonly SimEvent[], slackMs = 0): string[] {
  const due = new Map<string, number>();
  const out: string[] = [];
  for (const e of events) {
    if (e.e === 'inserted') due.delete(e.id);
    else if (e.e === 'seed' && e.created && e.runAt !== undefined) due.set(e.id, e.runAt);
    else if (e.e === 'call' && !e.end) {
      const at = due.get(e.id);
      if (at !== undefined && e.t < at - slackMs) {
        out.push(
          `at ${e.t} ms: call of step ${e.index} of ${e.id} began before its runAt (${at} ms)`,
        );
      }
    }
  }
  return out;
}
