import { randomBytes } from 'node:crypto';
import { Fate, type FateEvents, type FatesStore, openStore } from '@fate/core';
import { progress } from './bench-results.js';
import { BENCH_STEPS, type BenchEnv } from './bench-steps.js';

type Listener = <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => void;

/** In-process engines, each a `Fate` on its own store client (its own connection/session). */
export interface Engines {
  readonly fates: readonly Fate<BenchEnv>[];
  /** Shuts every engine down and closes its store client. */
  stop(): Promise<void>;
}

export const ENGINE_MODE = 'in-process Fate instances, each on its own store client';

/**
 * Starts `count` engines with default partitioning (membership) and finder backoff, and
 * resolves once every one of them sees all `count` as live: measuring starts from a
 * settled partition split, not from the seconds it takes to converge.
 */
export async function startEngines(
  url: string,
  count: number,
  workers: number,
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
      fates.push(
        new Fate<BenchEnv>({ store, env, steps: BENCH_STEPS, workers, onEvent: listener }),
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
