import { openStore } from '@fate/core';
import type { BenchBackend } from '../../services/backends.js';
import type { ScaleRow } from './scale.js';
import { cli, timed } from './scale-timing.js';

// ZooKeeper in `--mode scale`: it has none of the store queries, so age-off, counts and a
// list page read every transaction znode (the guard's fallback through `list`). Its store
// is seeded through the API (`seedMany` of 5,000): every znode is read whatever its status,
// so the full reads cost the same as on a store of mostly finished work.

/** The row of a ZooKeeper store: the full-read costs of `ScaleRow`, and how long seeding took. */
export type ZkScaleRow = Pick<
  ScaleRow,
  'size' | 'ageOffNothingMs' | 'countsMs' | 'listPageMs' | 'cliSummary' | 'cliList'
> & { backend: 'zk'; seedS: number };

export async function benchZkScale(
  backend: BenchBackend,
  size: number,
  progress: (line: string) => void,
): Promise<ZkScaleRow> {
  const ns = await backend.namespace();
  try {
    const store = await openStore(ns.url, { instanceId: 'scale-bench' });
    try {
      const t0 = performance.now();
      for (let done = 0; done < size; done += 5_000) {
        const n = Math.min(5_000, size - done);
        await store.seedMany(
          Array.from({ length: n }, (_, i) => ({
            step: { type: 'bench-noop', state: { left: 1 } },
            opName: `op${(done + i) % 5}`,
          })),
        );
      }
      const seedS = (performance.now() - t0) / 1_000;
      progress(`  zk ${size}: seeded in ${seedS.toFixed(1)} s`);
      if ((await store.counts()).total !== size) throw new Error('zk store miscounted');
      const nothing = await timed(() => store.ageOff({ retentionMs: 7 * 24 * 3_600_000 }), 1);
      const counts = await timed(() => store.counts(), 1);
      const page = await timed(() => store.listPage({ limit: 100 }), 1);
      const row: ZkScaleRow = {
        backend: 'zk',
        size,
        seedS: Math.round(seedS),
        ageOffNothingMs: Math.round(nothing.ms),
        countsMs: Math.round(counts.ms),
        listPageMs: Math.round(page.ms),
        cliSummary: await cli(['summary', '--store', ns.url]),
        cliList: await cli(['list', '--limit', '100', '--store', ns.url]),
      };
      progress(`  ${JSON.stringify(row)}`);
      return row;
    } finally {
      await store.close();
    }
  } finally {
    await ns.destroy();
  }
}
