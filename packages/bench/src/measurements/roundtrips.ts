import { randomBytes } from 'node:crypto';
import { FaultyBackend } from '@fate/conformance/faulty-backend';
import { backendForUrl, createFatesStore, Fate, type FatesStore } from '@fate/core';
import type { BenchConfig } from '../config.js';
import { BENCH_STEPS, type BenchEnv, noopStepData } from '../processes/steps.js';
import { progress, type RoundTripRow } from '../reporting/results.js';
import type { BenchBackend } from '../services/backends.js';
import { inParallel, withTimeout } from './stats.js';

const STEPS = [1, 5] as const;
const WORKERS = 16;
/** The calls a transaction makes itself; the rest (scans, liveness, listings) are shared. */
const OWN = new Set([
  'insert',
  'insertMany',
  'read',
  'tryReserve',
  'claimMany',
  'write',
  'finishAndClaim',
  'clearReservation',
]);

/**
 * Backend calls per transaction: the backend is wrapped in the conformance suite's
 * `FaultyBackend` (injecting nothing; it counts every call by operation). `roundTripTxs`
 * no-op transactions of 1 and of 5 steps are seeded one at a time (16 in flight) through
 * that client, then one engine of 16 workers on it drains them; every call from the first
 * seed to the last finish is counted and divided by the transactions.
 */
export async function benchRoundTrips(
  backend: BenchBackend,
  config: BenchConfig,
): Promise<RoundTripRow[]> {
  const rows: RoundTripRow[] = [];
  for (const steps of STEPS) {
    const row = await countCalls(backend, steps, config.roundTripTxs);
    rows.push(row);
    const ops = Object.entries(row.perTx).map(([op, n]) => `${op} ${n.toFixed(2)}`);
    const server = row.serverPerTx === undefined ? '' : `; server ${row.serverPerTx.toFixed(2)}`;
    progress(
      `  round trips, ${steps} step(s): ${row.total.toFixed(2)} per tx (${ops.join(', ')})${server}`,
    );
  }
  return rows;
}

async function countCalls(backend: BenchBackend, steps: number, txs: number) {
  const ns = await backend.namespace();
  const counted = new FaultyBackend(await backendForUrl(ns.url));
  let store: FatesStore | undefined;
  let fate: Fate<BenchEnv> | undefined;
  try {
    store = await createFatesStore(counted, {
      instanceId: `bench-${randomBytes(3).toString('hex')}`,
    });
    let finished = 0;
    let allDone: () => void = () => undefined;
    const done = new Promise<void>((r) => {
      allDone = r;
    });
    fate = new Fate<BenchEnv>({
      store,
      env: { onCall: () => undefined },
      steps: BENCH_STEPS,
      workers: WORKERS,
      onEvent: (type) => {
        if (type === 'finished' && ++finished === txs) allDone();
      },
    });
    const before = new Map(counted.calls);
    const serverBefore = await backend.serverRequests?.count();
    const seeder = store;
    const step = noopStepData(steps);
    await inParallel(txs, WORKERS, async () => {
      await seeder.seed({ step, opName: 'bench-roundtrips' });
    });
    await fate.start();
    await withTimeout(done, 120_000, `all ${txs} transactions finishing`);
    const serverAfter = await backend.serverRequests?.count();
    const perTx: Record<string, number> = {};
    let own = 0;
    let background = 0;
    for (const [op, n] of counted.calls) {
      const calls = (n - (before.get(op) ?? 0)) / txs;
      if (calls === 0) continue;
      perTx[op] = calls;
      if (OWN.has(op)) own += calls;
      else background += calls;
    }
    return {
      backend: backend.name,
      steps,
      txs,
      perTx,
      own,
      background,
      total: own + background,
      ...(serverBefore !== undefined && serverAfter !== undefined
        ? { serverPerTx: (serverAfter - serverBefore) / txs }
        : {}),
    } satisfies RoundTripRow;
  } finally {
    await fate?.shutdown(5_000).catch(() => undefined);
    await store?.close();
    await ns.destroy();
  }
}
