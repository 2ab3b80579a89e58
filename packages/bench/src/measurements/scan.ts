import {
  type FateId,
  type FatesStore,
  hashPartitionScanner,
  openStore,
  type PartitionScanner,
  rangePartitionScanner,
} from '@fate/core';
import type { BenchConfig } from '../config.js';
import { noopStepData } from '../processes/steps.js';
import { progress, type ScanRow } from '../reporting/results.js';
import type { BenchBackend } from '../services/backends.js';
import { inParallel, mean, median } from './stats.js';

const SCANNERS: readonly PartitionScanner[] = [hashPartitionScanner, rangePartitionScanner];

/**
 * Scan cost by partitioning strategy. One store of `txs` transactions, 10% runnable
 * (seeded) and 90% not (created, NEW); then for each partition count P, every partition is
 * scanned with the hash and the range scanner, each `scanRepeats` times, alternating so a
 * change in background load hits both alike. Per partition the median counts; the row
 * reports the mean over the P partitions, i.e. what one of P instances pays per scan.
 */
export async function benchScan(backend: BenchBackend, config: BenchConfig): Promise<ScanRow[]> {
  const ns = await backend.namespace();
  const store = await openStore(ns.url);
  try {
    await load(store, config);
    for (const scanner of SCANNERS) await scanner.scan(store, { partition: 0, total: 1 }); // warm-up
    const rows: ScanRow[] = [];
    for (const total of config.partitions) {
      const perStrategy = new Map(SCANNERS.map((s) => [s.strategy, [] as PartitionCost[]]));
      for (let partition = 0; partition < total; partition++) {
        const samples = new Map(SCANNERS.map((s) => [s.strategy, [] as PartitionCost[]]));
        for (let r = 0; r < config.scanRepeats; r++) {
          for (const scanner of SCANNERS) {
            samples.get(scanner.strategy)?.push(await timeScan(store, scanner, partition, total));
          }
        }
        for (const [strategy, list] of samples) {
          perStrategy.get(strategy)?.push({
            itemsRead: median(list.map((s) => s.itemsRead)),
            ms: median(list.map((s) => s.ms)),
            found: list[0]?.found ?? 0,
          });
        }
      }
      for (const scanner of SCANNERS) {
        const costs = perStrategy.get(scanner.strategy) ?? [];
        const row: ScanRow = {
          backend: backend.name,
          partitions: total,
          strategy: scanner.strategy,
          txs: config.txs,
          itemsReadPerInstance: mean(costs.map((c) => c.itemsRead)),
          msPerScan: mean(costs.map((c) => c.ms)),
          foundPerInstance: mean(costs.map((c) => c.found)),
          foundTotal: costs.reduce((sum, c) => sum + c.found, 0),
        };
        rows.push(row);
        progress(
          `  scan P=${total} ${row.strategy.padEnd(5)}: ${row.itemsReadPerInstance.toFixed(0)} items, ` +
            `${row.msPerScan.toFixed(2)} ms per scan (found ${row.foundTotal})`,
        );
      }
    }
    return rows;
  } finally {
    await store.close();
    await ns.destroy();
  }
}

interface PartitionCost {
  readonly itemsRead: number;
  readonly ms: number;
  readonly found: number;
}

/**
 * Wall time around a whole sweep of the partition, page after page as a work finder reads
 * it (scans are paged): the hash scanner's filtering is part of its cost.
 */
async function timeScan(
  store: FatesStore,
  scanner: PartitionScanner,
  partition: number,
  total: number,
): Promise<PartitionCost> {
  const started = performance.now();
  let itemsRead = 0;
  let found = 0;
  let after: FateId | undefined;
  do {
    const page = await scanner.scan(store, { partition, total }, after ? { after } : {});
    itemsRead += page.itemsRead;
    found += page.ids.length;
    after = page.last as FateId | undefined;
  } while (after !== undefined);
  return { itemsRead, ms: performance.now() - started, found };
}

/** Every tenth transaction is seeded (SUBMITTED, runnable); the rest stay NEW. */
async function load(store: FatesStore, config: BenchConfig): Promise<void> {
  const started = performance.now();
  let done = 0;
  const step = noopStepData(1);
  await inParallel(config.txs, config.inFlight, async (i) => {
    if (i % 10 === 0) await store.seed({ step, opName: 'bench-scan' });
    else await store.create();
    if (++done % 20_000 === 0) progress(`  scan: loaded ${done}/${config.txs}`);
  });
  const seconds = (performance.now() - started) / 1_000;
  progress(
    `  scan: loaded ${config.txs} transactions (10% runnable) in ${seconds.toFixed(1)} s ` +
      `(${Math.round(config.txs / seconds)} inserts/s, ${config.inFlight} in flight)`,
  );
}
