import { median } from '../measurements/stats.js';
import type { BacklogRow, BacklogRun, BenchResults, PeerRow } from '../reporting/results.js';
import { fmt, type Table } from '../reporting/table.js';
import type { BackendName } from '../services/backends.js';
import type { PeerName } from './peer-system.js';

// The side-by-side table of `--mode peers`: one column per system (each peer beside the
// fate backend on its store), one row per layout, then CPU and latency.

/** A column: a peer, or fate on a backend (beside its peer when it has one). */
interface Column {
  readonly title: string;
  readonly rows: readonly (BacklogRow | PeerRow)[];
  readonly latency?: { readonly p50Ms: number; readonly p99Ms: number };
  /** The peer column a fate column is compared with. */
  readonly peer?: Column;
}

const ORDER: readonly [PeerName | undefined, BackendName][] = [
  ['bullmq', 'redis'],
  ['plainjob', 'sqlite'],
  ['graphile-worker', 'postgres'],
  [undefined, 'zk'],
];

const PEER_TITLES: Record<PeerName, string> = {
  bullmq: 'BullMQ',
  plainjob: 'plainjob (SQLite)',
  'graphile-worker': 'graphile-worker (PostgreSQL)',
};

function columns(results: BenchResults): Column[] {
  const out: Column[] = [];
  for (const [peerName, backend] of ORDER) {
    const peerRows = results.peers.filter((r) => r.system === peerName);
    const latency = results.peerLatency.find((r) => r.system === peerName);
    const peer: Column | undefined =
      peerName && peerRows.length > 0
        ? {
            title: `${PEER_TITLES[peerName]} ${peerRows[0]?.version ?? ''}`,
            rows: peerRows,
            ...(latency ? { latency } : {}),
          }
        : undefined;
    if (peer) out.push(peer);
    const fateRows = results.backlog.filter((r) => r.backend === backend);
    const fateLatency = results.processLatency.find((r) => r.backend === backend);
    if (fateRows.length === 0) continue;
    out.push({
      title: `fate-${backend}`,
      rows: fateRows,
      ...(fateLatency ? { latency: fateLatency } : {}),
      ...(peer ? { peer } : {}),
    });
  }
  return out;
}

const layoutOf = (r: { processes: number; workers: number }) => `${r.processes}×${r.workers}`;
const plural = (n: number) => (n === 1 ? 'process' : 'processes');

/** Cores busy during a run: CPU per transaction × transactions per second. */
const cores = (runs: readonly BacklogRun[], cpu: (r: BacklogRun) => number | undefined) => {
  const each = runs.map((r) => ((cpu(r) ?? Number.NaN) * r.txPerSec) / 1e6);
  return median(each.filter(Number.isFinite));
};

function throughputCell(column: Column, layout: string): string {
  const row = column.rows.find((r) => layoutOf(r) === layout);
  if (!row) return '—';
  const peerRow = column.peer?.rows.find((r) => layoutOf(r) === layout);
  if (!peerRow) return fmt(row.txPerSec);
  return `${fmt(row.txPerSec)} (${(row.txPerSec / peerRow.txPerSec).toFixed(2)}×)`;
}

function cpuCell(column: Column, layout: string): string {
  const row = column.rows.find((r) => layoutOf(r) === layout);
  if (!row) return '—';
  const own = fmt(cores(row.runs, (r) => r.processCpuUsPerTx));
  const server = cores(row.runs, (r) => r.serverCpuUsPerTx);
  return Number.isFinite(server) ? `${own} + server ${fmt(server)}` : own;
}

function perTxCell(column: Column, layout: string): string {
  const row = column.rows.find((r) => layoutOf(r) === layout);
  if (!row) return '—';
  const server = row.serverCpuUsPerTx;
  return `${fmt(row.processCpuUsPerTx)}${server === undefined ? '' : ` + ${fmt(server)}`}`;
}

/** The side-by-side table; undefined when nothing of `--mode peers` ran. */
export function peersTable(results: BenchResults): Table | undefined {
  if (results.peers.length === 0 && results.peerLatency.length === 0) return undefined;
  const cols = columns(results);
  const layouts = [...new Set(cols.flatMap((c) => c.rows.map(layoutOf)))];
  const cpuLayout = layouts.includes('1×16') ? '1×16' : (layouts[0] ?? '1×16');
  const [p = '1', w = '16'] = cpuLayout.split('×');
  const cpuLabel = `${p} ${plural(Number(p))} × ${w}`;
  const rows: string[][] = [
    ['backlog (jobs)', ...cols.map((c) => fmt(c.rows[0]?.txs ?? Number.NaN))],
    ...layouts.map((layout) => {
      const [np = '1', nw = '1'] = layout.split('×');
      return [
        `${np} ${plural(Number(np))} × ${nw}, tx/s`,
        ...cols.map((c) => throughputCell(c, layout)),
      ];
    }),
    [`process CPU, cores (${cpuLabel})`, ...cols.map((c) => cpuCell(c, cpuLayout))],
    [`CPU µs per tx (${cpuLabel})`, ...cols.map((c) => perTxCell(c, cpuLayout))],
    [
      'seed → start p50 / p99, ms',
      ...cols.map((c) => (c.latency ? `${fmt(c.latency.p50Ms)} / ${fmt(c.latency.p99Ms)}` : '—')),
    ],
  ];
  return {
    title: 'fate beside the job queues: a backlog of one-step no-op jobs drained by processes',
    headers: ['', ...cols.map((c) => c.title)],
    rows,
  };
}

/** Each peer's runs, as the backlog table shows fate's; undefined when no peer ran. */
export function peerRunsTable(results: BenchResults): Table | undefined {
  if (results.peers.length === 0) return undefined;
  return {
    title: 'The job queues: each backlog drained by their processes (median of runs)',
    headers: [
      'queue',
      'processes × consumers',
      'jobs',
      'jobs/s',
      'jobs/s of each run',
      'process CPU µs/job',
      'server CPU µs/job',
    ],
    rows: results.peers.map((r) => [
      `${r.system} ${r.version}`,
      `${r.processes} × ${r.workers}`,
      String(r.txs),
      fmt(r.txPerSec),
      r.runs.map((run) => fmt(Math.round(run.txPerSec))).join(', '),
      fmt(r.processCpuUsPerTx),
      r.serverCpuUsPerTx === undefined ? '—' : fmt(r.serverCpuUsPerTx),
    ]),
  };
}
