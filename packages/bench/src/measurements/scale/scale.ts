import { fileURLToPath } from 'node:url';
import { type FatesStore, openStore, Status } from '@fate/core';
import type { BenchBackend } from '../../services/backends.js';
import { buildPostgres, buildSqlite, SPREAD_MS } from './scale-build.js';
import { buildRedis } from './scale-build-redis.js';
import { cli, run, timed } from './scale-timing.js';

// `--mode scale`: what the periodic and admin operations cost as the store
// grows. Per size: a store built in SQL (scale-build.ts), then each operation timed
// through the public API, the CLI run as a process (wall time and max RSS from
// /usr/bin/time), and an engine process draining for a while.

const WEEK = 7 * 24 * 3_600_000;
const ENGINE = fileURLToPath(new URL('./scale-engine.js', import.meta.url));

export interface ScaleRow {
  backend: string;
  size: number;
  buildS: number;
  seedPerS: number;
  scanPartitionMs: number;
  scanPages: number;
  scanIds: number;
  ageOffNothingMs: number;
  ageOffDueMs: number;
  ageOffDeleted: number;
  countsMs: number;
  listPageMs: number;
  listSubmittedPageMs: number;
  cliSummary: { ms: number; rssMb: number };
  cliList: { ms: number; rssMb: number };
  engine: { txPerS: number; rssStartMb: number; rssMaxMb: number; finished: number };
}

/** A 1/8 partition's runnable ids, a page of 1,000 at a time. */
async function scanPartition(store: FatesStore) {
  const range = { start: '20000000', end: '40000000' };
  const t = performance.now();
  let after: string | undefined;
  let pages = 0;
  let ids = 0;
  for (;;) {
    const page = await store.scanRunnable(range, { limit: 1_000, ...(after ? { after } : {}) });
    pages++;
    ids += page.ids.length;
    if (page.last === undefined) break;
    after = page.last;
  }
  return { ms: performance.now() - t, pages, ids };
}

/** The built store, read back through the API: every row counted, a page and its records read. */
async function checkBuilt(store: FatesStore, size: number): Promise<void> {
  const counts = await store.counts();
  const submitted = Math.floor(size / 10);
  const expected = { total: size, SUBMITTED: submitted, SUCCESSFUL: size - submitted };
  const got = {
    total: counts.total,
    SUBMITTED: counts.byStatus.SUBMITTED,
    SUCCESSFUL: counts.byStatus.SUCCESSFUL,
  };
  if (JSON.stringify(got) !== JSON.stringify(expected)) {
    throw new Error(`built store counts ${JSON.stringify(got)}, not ${JSON.stringify(expected)}`);
  }
  const page = await store.listPage({ limit: 20 });
  for (const row of page.rows) {
    const tx = await store.read(row.id);
    const stamp = tx.info.ageOff;
    const ok =
      tx.status === Status.SUBMITTED
        ? tx.stack.length === 1 && stamp === undefined
        : tx.status === Status.SUCCESSFUL && tx.stack.length === 0 && typeof stamp === 'number';
    if (!ok || tx.status !== row.status) throw new Error(`built record ${row.id} reads wrong`);
  }
}

export async function benchScale(
  backend: BenchBackend,
  sizes: readonly number[],
  drainSeconds: number,
  progress: (line: string) => void,
): Promise<ScaleRow[]> {
  const rows: ScaleRow[] = [];
  for (const size of sizes) {
    const ns = await backend.namespace();
    try {
      const url = new URL(ns.url);
      const first = await openStore(ns.url);
      const builtAt = first.now();
      await first.close();
      const t0 = performance.now();
      if (backend.name === 'sqlite') buildSqlite(url.pathname, size, builtAt);
      else if (backend.name === 'postgres') {
        const schema = url.searchParams.get('schema') as string;
        url.searchParams.delete('schema');
        url.searchParams.delete('poolSize');
        await buildPostgres(url.href.replace(/^postgres:/, 'postgresql:'), schema, size, builtAt);
      } else if (backend.name === 'redis') await buildRedis(ns.url, size, builtAt);
      else throw new Error(`--mode scale builds SQLite, PostgreSQL and Redis stores only`);
      const buildS = (performance.now() - t0) / 1_000;
      progress(`  ${backend.name} ${size}: built in ${buildS.toFixed(1)} s`);
      const store = await openStore(ns.url, { instanceId: 'scale-bench' });
      try {
        await checkBuilt(store, size);
        const seed = await timed(async () => {
          const requests = Array.from({ length: 5_000 }, () => ({
            step: { type: 'bench-noop', state: { left: 1 } },
            opName: 'seeded',
          }));
          await store.seedMany(requests);
        }, 4);
        const scan = await scanPartition(store);
        const nothing = await timed(() => store.ageOff({ retentionMs: WEEK }));
        if (nothing.last.deleted !== 0) throw new Error('age-off deleted with nothing due');
        const counts = await timed(() => store.counts());
        const page = await timed(() => store.listPage({ limit: 100 }));
        const submitted = await timed(() =>
          store.listPage({ limit: 100, statuses: [Status.SUBMITTED] }),
        );
        const cliSummary = await cli(['summary', '--store', ns.url]);
        const cliList = await cli(['list', '--limit', '100', '--store', ns.url]);
        // 1% of the store due: the oldest 1/90 of the finished 90%, by the store's clock.
        const due = Math.round(size / 100);
        const retentionMs = Math.round(SPREAD_MS * (1 - 1 / 90) + (store.now() - builtAt));
        const ageOffDue = await timed(() => store.ageOff({ retentionMs, limit: due }), 1);
        progress(
          `  ${backend.name} ${size}: age-off ${ageOffDue.last.deleted} due in ${ageOffDue.ms.toFixed(0)} ms`,
        );
        const engine = await run(process.execPath, [ENGINE, ns.url, String(drainSeconds)], {
          maxBuffer: 1024 * 1024,
        });
        const e = JSON.parse(engine.stdout.trim().split('\n').at(-1) as string);
        const row: ScaleRow = {
          backend: backend.name,
          size,
          buildS: Math.round(buildS),
          seedPerS: Math.round(5_000 / (seed.ms / 1_000)),
          scanPartitionMs: Math.round(scan.ms),
          scanPages: scan.pages,
          scanIds: scan.ids,
          ageOffNothingMs: +nothing.ms.toFixed(2),
          ageOffDueMs: Math.round(ageOffDue.ms),
          ageOffDeleted: ageOffDue.last.deleted,
          countsMs: +counts.ms.toFixed(1),
          listPageMs: +page.ms.toFixed(1),
          listSubmittedPageMs: +submitted.ms.toFixed(1),
          cliSummary,
          cliList,
          engine: {
            txPerS: Math.round(e.finished / (e.ms / 1_000)),
            rssStartMb: e.rssStartMb,
            rssMaxMb: e.rssMaxMb,
            finished: e.finished,
          },
        };
        progress(`  ${JSON.stringify(row)}`);
        rows.push(row);
      } finally {
        await store.close();
      }
    } finally {
      await ns.destroy();
    }
  }
  return rows;
}

/** The markdown table of `rows`. */
export function scaleTable(rows: readonly ScaleRow[]): string {
  const head =
    '| backend | retained | seedMany tx/s | runnable scan, 1/8 partition | age-off, nothing due | age-off, 1% due | counts | list page (all / SUBMITTED) | `fate summary` | `fate list` | engine drain tx/s, RSS max |';
  const sep = `|${'---|'.repeat(11)}`;
  const lines = rows.map((r) =>
    [
      r.backend,
      r.size.toLocaleString('en-US'),
      r.seedPerS.toLocaleString('en-US'),
      `${r.scanPartitionMs} ms (${r.scanIds.toLocaleString('en-US')} ids, ${r.scanPages} pages)`,
      `${r.ageOffNothingMs} ms`,
      `${r.ageOffDueMs} ms (${r.ageOffDeleted.toLocaleString('en-US')} deleted)`,
      `${r.countsMs} ms`,
      `${r.listPageMs} / ${r.listSubmittedPageMs} ms`,
      `${r.cliSummary.ms} ms, ${r.cliSummary.rssMb} MB`,
      `${r.cliList.ms} ms, ${r.cliList.rssMb} MB`,
      `${r.engine.txPerS.toLocaleString('en-US')}, ${r.engine.rssMaxMb} MB`,
    ].join(' | '),
  );
  return [head, sep, ...lines.map((l) => `| ${l} |`)].join('\n');
}
