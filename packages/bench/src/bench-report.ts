import type { BenchConfig } from './bench-config.js';
import { modeSummary, modeTables } from './bench-mode-report.js';
import { type BenchResults, describeBackend, type ScanRow } from './bench-results.js';
import { fmt, markdownTable, type Table, textTable } from './bench-table.js';
import { THROUGHPUT_MODE } from './bench-throughput.js';

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
  if (results.throughput.length > 0) lines.push(`throughput: ${THROUGHPUT_MODE}`);
  lines.push(...modeSummary(results));
  return lines.join('\n');
}

/** docs/benchmarks.md: machine, method, tables and the chart. */
export function markdownReport(
  results: BenchResults,
  config: BenchConfig,
  chartFile: string,
): string {
  const m = results.machine;
  const out = [
    '# Benchmarks',
    '',
    `Written on ${m.date.slice(0, 10)} by the benchmark script in \`packages/bench\`, as`,
    `\`${results.command}\` (\`npm run bench\` builds first and runs it with no options).`,
    'Run it again to refresh this page and its chart. Figures come from one machine and one',
    'run: compare the rows with each other, not with other machines.',
    '',
    '## Machine',
    '',
    `- CPU: ${m.cpu}, ${m.cores} cores; memory ${m.memoryGiB} GiB; ${m.platform}`,
    `- Node ${m.node}; load average when the run started: ${m.loadAverage}`,
    ...results.backends.map((b) => `- ${describeBackend(b)}`),
    '',
    '## What is measured',
    '',
    `- **Scan cost.** A fresh store of ${fmt(config.txs)} transactions, 10% runnable (seeded) and`,
    '  90% not (created, NEW), loaded with many requests in flight. For each partition count P,',
    '  every partition is scanned with the hash and with the range scanner',
    `  (${config.scanRepeats} times each, median per partition); the table shows the mean over the`,
    '  P partitions: what one of P instances reads and waits per scan. _Items read_ is what the',
    '  backend reports reading (`ScanResult.itemsRead`: rows, keys or znodes). A hash partition',
    '  reads every runnable transaction and keeps its share; a range partition asks a sorted store',
    '  for its id range only. _ms_ is the wall time of the scanner call, filtering included.',
    `- **Throughput.** ${config.throughputTxs} no-op transactions of 1 and 5 steps, seeded while the`,
    `  engines run, counted by their 'finished' events; ${THROUGHPUT_MODE}.`,
    '  Default finder backoff and partitioning (membership, range scanner).',
    `- **Latency.** ${config.latencySamples} samples per row, ${config.latencySpacingMs[0]}–${config.latencySpacingMs[1]} ms apart, on an idle`,
    "  engine: from just before `seed` until the step's `call` begins. _other-client_ seeds through",
    "  a separate store client, so only the backend's wake-ups (or, without them, the finder's",
    '  next poll) start the work; _same-instance_ seeds through `fate.seed`, which also wakes the',
    '  local finder.',
    '- **Recovery.** Two engine processes with the default liveness settings (timeout 3,000 ms,',
    '  heartbeat and dead-reservation check every 750 ms) run slow transactions; the one',
    '  holding reservations is killed with SIGKILL; the time until one of its transactions',
    `  begins its step on the other process (median of ${config.recoveryTrials}).`,
    '',
  ];
  for (const [i, t] of tables(results).entries()) {
    out.push(`## ${t.title}`, '');
    if (i === 0 && results.scan.length > 0) {
      out.push(`![Scan cost against partitions, hash and range, per backend](${chartFile})`, '');
    }
    out.push(markdownTable(t), '');
    if (i === 0 && results.scan.length > 0) out.push(...scanSummary(results.scan), '');
  }
  return out.join('\n');
}
