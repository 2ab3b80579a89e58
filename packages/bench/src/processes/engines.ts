import { randomBytes } from 'node:crypto';
import {
  Fate,
  type FateEvents,
  type FatesStore,
  openStore,
  type PoolOptions,
  Status,
} from '@fate/core';
import { progress } from '../reporting/results.js';
import { BENCH_STEPS, type BenchEnv } from './steps.js';

type Listener = <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => void;

/** In-process engines, each a `Fate` on its own store client (its own connection/session). */
export interface Engines {
  readonly fates: readonly Fate<BenchEnv>[];
  /** Shuts every engine down and closes its store client. */
  stop(): Promise<void>;
}

export const ENGINE_MODE = 'in-process Fate instances, each on its own store client';

/**
 * Starts `count` engines (each with `workers` in one pool, or with these pools) with default
 * partitioning (membership) and finder backoff, and resolves once every one of them sees
 * all `count` as live: measuring starts from a settled partition split, not from the
 * seconds it takes to converge.
 */
export async function startEngines(
  url: string,
  count: number,
  workers: number | readonly PoolOptions[],
  env: BenchEnv,
  onEvent: Listener = () => undefined,
): Promise<Engines> {
  const run = randomBytes(3).toString('hex');
  const live = new Array<number>(count).fill(0);
  let warnings = 0;
  const stores: FatesStore[] = [];
  const fates: Fate<BenchEnv>[] = [];
  const stop = async () => {
    await Promise.all(fates.map((f) => f.shutdown(5_000).catch(() => undefined)));
    await Promise.all(stores.map((s) => s.close().catch(() => undefined)));
  };
  try {
    for (let i = 0; i < count; i++) {
      const store = await openStore(url, { instanceId: `bench-${run}-${i}` });
      stores.push(store);
      const listener: Listener = (type, event) => {
        if (type === 'partition') live[i] = (event as FateEvents['partition']).live;
        else if (type === 'warning' && warnings++ < 5) {
          const w = event as FateEvents['warning'];
          progress(`  warning from engine ${i}: ${w.message}: ${String(w.error)}`);
        }
        onEvent(type, event);
      };
      const pool = typeof workers === 'number' ? { workers } : { pools: workers };
      fates.push(
        new Fate<BenchEnv>({ store, env, steps: BENCH_STEPS, ...pool, onEvent: listener }),
      );
    }
    await Promise.all(fates.map((f) => f.start()));
    const deadline = Date.now() + 15_000;
    while (live.some((n) => n !== count)) {
      if (Date.now() > deadline) throw new Error(`engines saw live counts ${live}, not ${count}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { fates, stop };
}

/** Transactions the store holds as SUCCESSFUL (a listing: every such record is read). */
export async function countSucceeded(store: FatesStore): Promise<number> {
  return (await store.list({ statuses: [Status.SUCCESSFUL] })).length;
}

/**
 * Waits until the store holds `total` SUCCESSFUL transactions or `timeoutMs` passed; the
 * count it saw last. Until nothing is runnable or reserved, it only asks that (two cheap
 * calls every 200 ms), not for the listing.
 */
export async function waitSucceeded(
  store: FatesStore,
  total: number,
  timeoutMs: number,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let succeeded = 0;
  for (;;) {
    const busy =
      (await store.scanRunnable(undefined, { limit: 1 })).ids.length > 0 ||
      (await store.reservations()).length > 0;
    if (!busy) succeeded = await countSucceeded(store);
    if (succeeded >= total || Date.now() > deadline) return succeeded;
    await new Promise((r) => setTimeout(r, busy ? 200 : 1_000));
  }
}
