import type { FateId } from '../ids.js';
import type { WorkQueue } from './work-queue.js';

/** What handing out a page needs from its finder. */
export interface HandOutHost {
  /** The queue of the pool that runs `op` here; undefined when this engine does not run it. */
  readonly route: (op: string) => WorkQueue | undefined;
  /** Every pool's queue. */
  readonly queues: readonly WorkQueue[];
  /** Called with ops found runnable that this engine does not run. */
  readonly foreign: (op: string) => void;
  /** Pools whose ids were left behind because they were full (the finder's sleep watches them). */
  readonly starved: Set<WorkQueue>;
  /** False once the finder stopped or must read its page again: the rest is not handed out. */
  going(): boolean;
  /** Resolves when the finder is woken, told to rescan, or stopped. */
  wakeUp(): Promise<void>;
}

/**
 * Hands each id of a page to its pool's queue, in the page's order per pool; answers how
 * many were queued. A full pool does not stop the others: its ids wait while the rest are
 * handed out, and the finder waits for room in it only while no other pool has an idle
 * worker; then it moves on and leaves them to the next sweep. With a single pool this is
 * plain back-pressure.
 */
export async function handOut(
  host: HandOutHost,
  ids: readonly FateId[],
  ops: readonly string[],
): Promise<number> {
  let pending: Array<{ id: FateId; queue: WorkQueue }> = [];
  ids.forEach((id, i) => {
    const op = ops[i] ?? '';
    const queue = host.route(op);
    if (queue) pending.push({ id, queue });
    else host.foreign(op);
  });
  let found = 0;
  while (pending.length > 0 && host.going()) {
    const waiting: typeof pending = [];
    for (const item of pending) {
      const result = item.queue.tryOffer(item.id);
      if (result === 'queued') found++;
      else if (result === 'full') waiting.push(item);
    }
    pending = waiting;
    const full = new Set(pending.map((p) => p.queue));
    if (full.size === 0) break;
    if (host.queues.some((q) => !full.has(q) && q.idle > 0)) {
      for (const q of full) host.starved.add(q);
      break; // other pools are hungry: go on to the next page
    }
    await Promise.race([...[...full].map((q) => q.changed()), host.wakeUp()]);
  }
  return found;
}
