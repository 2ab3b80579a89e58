import { describe, expect, it, vi } from 'vitest';
import type { FatesStore } from '../src/contract/fates-store.js';
import type { ScanResult } from '../src/contract/types.js';
import { WorkFinder } from '../src/engine/work-finder.js';
import { WorkQueue } from '../src/engine/work-queue.js';
import { type FateId, newFateId } from '../src/ids.js';

/** A scan whose answer the test gives when it chooses. */
function pendingScan() {
  let answer: (page: ScanResult) => void = () => undefined;
  const page = new Promise<ScanResult>((resolve) => {
    answer = resolve;
  });
  return { page, answer, asked: vi.fn(() => page) };
}

/** `promise`, or a failure after `ms`: every wait of the case is bounded. */
async function within<T>(promise: Promise<T>, ms = 5_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`nothing after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const page = (ids: FateId[]): ScanResult => ({
  ids,
  ops: ids.map(() => 'x'),
  priorities: ids.map(() => 0),
  itemsRead: ids.length,
  ms: 0,
});

describe('work finder', () => {
  it('lets finishing writes claim nothing while a page of its sweep is read and handed out, and again once the page is in the queue', async () => {
    const queue = new WorkQueue(1);
    const scan = pendingScan();
    // the store has nothing to claim: the first round falls through to a page of the sweep
    const store = {
      instanceId: 'e1',
      now: () => Date.now(),
      claimRunnable: async () => ({ claimed: [], refused: [] }),
    } as unknown as FatesStore;
    const finder = new WorkFinder({
      store,
      scanner: { strategy: 'range', scan: scan.asked },
      route: () => queue,
      queues: [queue],
      foreign: () => undefined,
      partition: async () => ({ partition: 0, total: 1 }),
      leaseValid: () => true,
      backoffMinMs: 5,
      backoffMaxMs: 100,
      pageSize: 64,
      claim: { queue, signal: () => new AbortController().signal },
      onEvent: () => undefined,
    });
    const taken = queue.take(); // one idle worker
    expect(finder.claimScope()).toBeUndefined(); // not started: no partition yet
    finder.start();
    try {
      await vi.waitFor(() => expect(scan.asked).toHaveBeenCalledTimes(1), { timeout: 5_000 });
      expect(finder.claimScope()).toBeUndefined(); // the page is being read
      const ids = [newFateId(), newFateId(), newFateId()];
      scan.answer(page(ids));
      // the worker gets the first id, the queue (room for one) the second; the third waits
      expect(await within(taken)).toBe(ids[0]);
      await vi.waitFor(() => expect(queue.queued).toBe(1), { timeout: 5_000 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(finder.claimScope()).toBeUndefined(); // still handing the page out
      expect(await within(queue.take())).toBe(ids[1]); // room: the third goes in, page done
      await vi.waitFor(() => expect(finder.claimScope()).toEqual({ range: {} }), {
        timeout: 5_000,
      });
      expect(queue.has(ids[2] as FateId)).toBe(true);
    } finally {
      scan.answer(page([])); // a no-op once answered
      queue.close(); // as an engine's shutdown does, before it stops its finder
      await within(finder.stop());
    }
  });
});
