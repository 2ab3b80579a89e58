import { modeSummary, modeTables } from './mode-tables.js';
import { type BenchResults, describeBackend, type ScanRow } from './results.js';
import { fmt, type Table, textTable } from './table.js';

function scanTable(rows: readonly ScanRow[]): Table {
  const find = (b: string, p: number, s: string) =>
    rows.find((r) => r.backend === b && r.partitions === p && r.strategy === s);
  const keys = [...new Set(rows.map((r) => `${r.backend}|${r.partitions}`))];
  return {
    title: `Scan cost per instance (${fmt(rows[0]?.txs ?? 0)} transactions, 10% runnable)`,
    headers: [
      'backend',
      'partitions',
      'hash: items read',
      'range: items read',
      'hash: ms',
      'range: ms',
      'runnable found',
    ],
    rows: keys.map((key) => {
      const [backend = '', p = '0'] = key.split('|');
      const hash = find(backend, Number(p), 'hash');
      const range = find(backend, Number(p), 'range');
      return [
        backend,
        p,
        fmt(hash?.itemsReadPerInstance ?? Number.NaN),
        fmt(range?.itemsReadPerInstance ?? Number.NaN),
        fmt(hash?.msPerScan ?? Number.NaN),
        fmt(range?.msPerScan ?? Number.NaN),
        `${hash?.foundTotal ?? '—'} / ${range?.foundTotal ?? '—'}`,
      ];
    }),
  };
}

/** One sentence per backend: range against hash at the largest partition count. */
export function scanSummary(rows: readonly ScanRow[]): string[] {
  const lines: string[] = [];
  for (const backend of new Set(rows.map((r) => r.backend))) {
    const mine = rows.filter((r) => r.backend === backend);
    const p = Math.max(...mine.map((r) => r.partitions));
    const hash = mine.find((r) => r.partitions === p && r.strategy === 'hash');
    const range = mine.find((r) => r.partitions === p && r.strategy === 'range');
    if (!hash || !range || p < 2) continue;
    const times = (a: number, b: number) => (b > 0 ? `${fmt(a / b)}×` : '—');
    lines.push(
      `- ${backend}, ${p} partitions: a range partition reads ${times(hash.itemsReadPerInstance, range.itemsReadPerInstance)} ` +
        `fewer items than a hash partition (${fmt(range.itemsReadPerInstance)} against ${fmt(hash.itemsReadPerInstance)}) ` +
        `and scans ${times(hash.msPerScan, range.msPerScan)} faster (${fmt(range.msPerScan)} ms against ${fmt(hash.msPerScan)} ms).`,
    );
  }
  return lines;
}

export function tables(results: BenchResults): Table[] {
  const out: Table[] = [];
  if (results.scan.length > 0) out.push(scanTable(results.scan));
  if (results.throughput.length > 0) {
    out.push({
      title: 'Throughput, seed to completion (no-op steps)',
      headers: ['backend', 'steps', 'instances × workers', 'transactions', 'tx/s'],
      rows: results.throughput.map((r) => [
        r.backend,
        String(r.steps),
        `${r.instances} × ${r.workers}`,
        String(r.txs),
        fmt(r.txPerSec),
      ]),
    });
  }
  const spread = results.throughput.filter((r) => r.commandsPerNode);
  if (spread.length > 0) {
    const nodes = Object.keys(spread[0]?.commandsPerNode ?? {});
    out.push({
      title: 'Load spread over the Redis Cluster: commands each master ran',
      headers: ['steps', 'shards', 'instances', 'tx/s', ...nodes],
      rows: spread.map((r) => [
        String(r.steps),
        String(r.shards ?? 1),
        String(r.instances),
        fmt(r.txPerSec),
        ...nodes.map((n) => String(r.commandsPerNode?.[n] ?? 0)),
      ]),
    });
  }
  if (results.latency.length > 0) {
    out.push({
      title: 'Seed-to-start latency on an idle engine (ms)',
      headers: ['backend', 'seeded by', 'p50', 'p99', 'max', 'samples'],
      rows: results.latency.map((r) => [
        r.backend,
        r.seededBy,
        fmt(r.p50Ms),
        fmt(r.p99Ms),
        fmt(r.maxMs),
        String(r.samples),
      ]),
    });
  }
  if (results.recovery.length > 0) {
    out.push({
      title: 'Recovery after SIGKILL of an engine process (ms)',
      headers: ['backend', 'median', 'trials', 'transactions held'],
      rows: results.recovery.map((r) => [
        r.backend,
        fmt(r.ms),
        r.trials.map(fmt).join(', '),
        String(r.held),
      ]),
    });
  }
  out.push(...modeTables(results));
  if (results.errors.length > 0) out.push(errorsTable(results));
  return out;
}

export function errorsTable(results: BenchResults): Table {
  return {
    title: 'Not measured',
    headers: ['backend', 'measure', 'error'],
    rows: results.errors.map((e) => [e.backend, e.measure, e.message]),
  };
}

export function machineLines(results: BenchResults): string[] {
  const m = results.machine;
  return [
    `CPU: ${m.cpu} (${m.cores} cores), memory ${m.memoryGiB} GiB, ${m.platform}`,
    `Node ${m.node}; ${m.date}; load average at start ${m.loadAverage}`,
    ...results.backends.map(describeBackend),
  ];
}

/** The terminal report. */
export function textReport(results: BenchResults): string {
  const lines = [`fate benchmarks${results.quick ? ' (quick)' : ''}`, ...machineLines(results), ''];
  for (const [i, t] of tables(results).entries()) {
    lines.push(textTable(t), '');
    if (i === 0 && results.scan.length > 0) lines.push(...scanSummary(results.scan), '');
  }
  lines.push(...modeSummary(results));
  return lines.join('\n');
}
