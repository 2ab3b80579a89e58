// Page times of `fate ui` on a large SQLite store: seeds N transactions (default 1,000,000;
// `node scripts/measure-ui.mjs 200000` for fewer) into a fresh file, starts the console on it
// and times each page over HTTP (median and p95 of 20 requests each, after 2 warm-ups).
// Prints a table and the JSON. Run `npm run build` first. Not a test: it asserts nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startUi } from '@fate/cli';
import { openStore } from '@fate/core';

const total = Number(process.argv[2] ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'fate-ui-measure-'));
const url = `sqlite:${join(dir, 'fate.db')}`;
const store = await openStore(url);
const ops = ['order', 'refund', 'invoice', 'ship', 'restock'];
const t0 = performance.now();
const BATCH = 5_000;
for (let done = 0; done < total; done += BATCH) {
  const n = Math.min(BATCH, total - done);
  await store.seedMany(
    Array.from({ length: n }, (_, i) => ({
      step: { type: 'noop', state: { n: done + i } },
      opName: ops[(done + i) % ops.length],
    })),
  );
}
const seedS = (performance.now() - t0) / 1_000;
// a few failed ones, so that a status filter has something rare to find
const failedIds = [];
for (const r of (await store.listPage({ limit: 50 })).rows) {
  const fate = await store.reserve(r.id, { timeoutMs: 5_000 });
  await fate.commit([
    { op: 'setInfo', key: 'error', value: { message: 'boom', name: 'Error' } },
    { op: 'setStatus', status: 'FAILED_IN_PROGRESS' },
    { op: 'setStatus', status: 'FAILED' },
    { op: 'unreserve' },
  ]);
  failedIds.push(r.id);
}
const ui = await startUi({ store, storeUrl: url, port: 0, refreshMs: 0, log: () => {} });
const middle = (await store.listPage({ after: '80000000-0000-4000-8000-000000000000', limit: 1 }))
  .rows[0]?.id;
const pages = {
  'overview (counts as the sampler keeps them)': '/?fragment=live',
  'list, first page of 50': '/tx?fragment=live',
  'list, a page from the middle': `/tx?after=${middle}&fragment=live`,
  'list, status SUBMITTED and op refund': '/tx?status=SUBMITTED&op=refund&fragment=live',
  'list, status FAILED (50 of N)': '/tx?status=FAILED&fragment=live',
  'list, page of 200': '/tx?limit=200&fragment=live',
  'transaction page': `/tx/${failedIds[0]}?fragment=live`,
};
const rows = [];
for (const [name, path] of Object.entries(pages)) {
  const times = [];
  for (let i = 0; i < 22; i++) {
    const t = performance.now();
    const res = await fetch(`${ui.url}${path}`);
    const body = await res.text();
    if (!res.ok) throw new Error(`${path}: ${res.status} ${body.slice(0, 200)}`);
    if (i >= 2) times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
  rows.push({ page: name, medianMs: +q(0.5).toFixed(1), p95Ms: +q(0.95).toFixed(1) });
}
{
  // what the overview costs when it reads the counts (the sampler spaces those reads)
  const times = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    await store.counts();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  rows.push({
    page: 'store.counts() alone (uncached)',
    medianMs: +times[3].toFixed(1),
    p95Ms: +times[6].toFixed(1),
  });
}
await ui.close();
await store.close();
rmSync(dir, { recursive: true, force: true });
console.log(
  `fate ui on SQLite, ${total.toLocaleString('en-US')} transactions (seeded in ${seedS.toFixed(0)} s), queryCosts ${JSON.stringify(store.queryCosts)}`,
);
for (const r of rows)
  console.log(
    `${r.page.padEnd(42)} median ${String(r.medianMs).padStart(7)} ms   p95 ${String(r.p95Ms).padStart(7)} ms`,
  );
console.log(JSON.stringify({ total, seedS, rows }));
