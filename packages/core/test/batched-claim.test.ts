// The finder's claims (`batched-claim.ts`): when an engine claims at all, and what one claim
// round hands out, lets go and reports, over fakes of the store and a real work queue.
import { describe, expect, it, vi } from 'vitest';
import { type ClaimRoundHost, claimOption, claimRound } from '../src/engine/batched-claim.js';
import { WorkQueue } from '../src/engine/work-queue.js';
import type { FateId, FateStore } from '../src/index.js';

/** Options as `claimOption` reads them; each case changes one part. */
function options(
  change: { batchedClaims?: boolean; pools?: number; ops?: string[]; strategy?: string } = {},
) {
  const queue = new WorkQueue(4);
  const pool = { queue, workers: 2, ...(change.ops ? { ops: change.ops } : {}) };
  return {
    store: { batchedClaims: change.batchedClaims ?? true },
    pools: { all: Array.from({ length: change.pools ?? 1 }, () => pool) },
    scanner: { strategy: change.strategy ?? 'range' },
  } as never;
}
const RANGE = {}; // the whole id space
const workers = { runSignal: new AbortController().signal } as never;

describe('claimOption', () => {
  it('claims with one pool for every op over range partitions, on a store that claims natively', () => {
    const { claim } = claimOption(options(), workers);
    expect(claim?.signal()).toBe((workers as { runSignal: AbortSignal }).runSignal);
  });

  it.each([
    ['a store without batched claims', options({ batchedClaims: false }), workers],
    ['two pools', options({ pools: 2 }), workers],
    ['a pool of some ops only', options({ ops: ['a'] }), workers],
    ['no workers here', options(), undefined],
    ['hash partitions', options({ strategy: 'hash' }), workers],
  ])('does not claim with %s', (_what, o, w) => {
    expect(claimOption(o, w)).toEqual({});
  });
});

/** A claimed handle: `startedNow` as a claim that started it; its let-go is recorded. */
function handle(id: string, lettingGo: string[]): FateStore {
  return {
    id: id as FateId,
    startedNow: false,
    unreserve: async () => {
      lettingGo.push(id);
    },
  } as unknown as FateStore;
}

function host(answer: { claimed: FateStore[]; refused: Array<{ id: FateId; error: Error }> }) {
  const onEvent = vi.fn();
  const asked: number[] = [];
  let handing = true;
  const h: ClaimRoundHost = {
    store: {
      claimRunnable: async (_range: unknown, { limit }: { limit: number }) => {
        asked.push(limit);
        return answer;
      },
    } as never,
    onEvent,
    handing: () => handing,
    until: async (change) => change,
  };
  return { h, onEvent, asked, stopHanding: () => (handing = false) };
}

describe('claimRound', () => {
  it('claims for the idle workers, hands each out, and reports what was refused', async () => {
    const queue = new WorkQueue(4);
    const taken = [queue.take(), queue.take(), queue.take()]; // three idle workers
    const lettingGo: string[] = [];
    const refused = [{ id: 'r' as FateId, error: new Error('corrupt') }];
    const { h, onEvent, asked } = host({
      claimed: [handle('a', lettingGo), handle('b', lettingGo)],
      refused,
    });
    const signal = new AbortController().signal;
    const round = await claimRound(h, { queue, signal: () => signal }, RANGE);
    expect(asked).toEqual([3]);
    // two handed out; with the refused one the claim took all it asked for
    expect(round).toEqual({ found: 2, full: true, wait: false });
    expect(await Promise.all(taken.slice(0, 2))).toEqual(['a', 'b']);
    expect(queue.claimed('a' as FateId)?.signal).toBe(signal);
    expect(lettingGo).toEqual([]);
    expect(onEvent).toHaveBeenCalledWith('warning', {
      message: 'reserving failed',
      id: 'r',
      error: refused[0]?.error,
    });
  });

  it('is not full when the claim took fewer than the idle workers', async () => {
    const queue = new WorkQueue(4);
    void queue.take();
    void queue.take();
    const { h } = host({ claimed: [handle('a', [])], refused: [] });
    const round = await claimRound(h, { queue, signal: () => new AbortController().signal }, RANGE);
    expect(round).toEqual({ found: 1, full: false, wait: false });
  });

  it('lets go of what it claimed once it may no longer hand out', async () => {
    const queue = new WorkQueue(4);
    void queue.take();
    const lettingGo: string[] = [];
    const { h, stopHanding } = host({ claimed: [handle('a', lettingGo)], refused: [] });
    stopHanding();
    const round = await claimRound(h, { queue, signal: () => new AbortController().signal }, RANGE);
    expect(round).toEqual({ found: 0, full: true, wait: false });
    expect(lettingGo).toEqual(['a']);
    expect(queue.has('a' as FateId)).toBe(false);
  });

  it('waits without claiming while no worker is idle', async () => {
    const queue = new WorkQueue(4);
    const { h, asked } = host({ claimed: [], refused: [] });
    const round = claimRound(h, { queue, signal: () => new AbortController().signal }, RANGE);
    void queue.take(); // a worker becomes idle: the round ends, having claimed nothing
    expect(await round).toEqual({ found: 0, full: true, wait: true });
    expect(asked).toEqual([]);
  });
});
