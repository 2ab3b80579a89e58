import type { BackendName } from './bench-backends.js';
import { POOL_LAYOUTS } from './bench-pools.js';
import type { BenchResults, LatencyRow, RoundTripRow } from './bench-results.js';
import { STORM } from './bench-storm.js';
import { fmt, type Table } from './bench-table.js';
import { peersTable } from './peers/peers-table.js';

// The tables of the modes beside the default run (storm, backlog, pools, roundtrips), with
// the figures and targets their issues give, so a reader sees them side by side.

/** Issue 10: storm max kill-to-resume targets, ms. */
const STORM_TARGET_MS: Partial<Record<BackendName, number>> = {
  sqlite: 5_000,
  redis: 5_000,
  zk: 6_000,
};
/** Issue 10: the max kill-to-resume measured before (2,000 transactions), ms. */
const STORM_BEFORE_MS: Partial<Record<BackendName, number>> = {
  sqlite: 8_400,
  redis: 5_800,
  zk: 15_400,
};

/** Issue 17: previous backlog figures ("tx/s, CPU µs per tx") and targets, by backend and layout. */
const BACKLOG_BEFORE: Record<string, string> = {
  'sqlite 1×16': '3,200 tx/s, ~245 µs',
  'sqlite 2×16': '3,700 tx/s',
  'redis 1×16': '6,900 tx/s, ~138 + 83 µs',
};
/** Issue 17: a simple job queue on the same store, same machine and run. */
const BACKLOG_QUEUE: Record<string, string> = {
  'sqlite 1×16': 'plainjob 6,200 jobs/s, ~111 µs',
  'sqlite 2×16': 'plainjob 7,600 jobs/s',
  'redis 1×16': 'BullMQ 9,600 jobs/s, ~82 + 50 µs',
};
/** Issue 17: the backlog targets, tx/s at least. */
const BACKLOG_TARGET: Record<string, number> = {
  'sqlite 1×16': 9_000,
  'redis 1×16': 12_000,
  'zk 1×16': 1_500,
};
const atLeast = (target: number | undefined) =>
  target === undefined ? '—' : `≥ ${fmt(target)} tx/s`;
/** Issue 17: seed-to-start p50 from another process, before and targets, ms. */
const LATENCY_BEFORE: Partial<Record<BackendName, string>> = { sqlite: '11.2', redis: '3.0' };
const LATENCY_QUEUE: Partial<Record<BackendName, string>> = {
  sqlite: 'plainjob 5.5 (10 ms poll)',
  redis: 'BullMQ 2.6',
};
const LATENCY_TARGET: Partial<Record<BackendName, string>> = {
  sqlite: '< 3',
  redis: '≤ 2.5',
  zk: '< 5',
};

const ms = (v: number) => fmt(v);

function stormTable(results: BenchResults): Table {
  return {
    title: `Crash storm: ${STORM.processes} processes × ${STORM.workers} workers, a SIGKILL every ${fmt((results.storm[0]?.killEveryMs ?? 0) / 1_000)} s (kill-to-resume, ms)`,
    headers: [
      'backend',
      'transactions',
      'kills (with victims)',
      'victims',
      'p50',
      'max',
      'target max',
      'max before',
      'lost',
      'steps run twice',
      'overlaps',
      'work done after (s)',
    ],
    rows: results.storm.map((r) => [
      r.backend,
      String(r.txs),
      `${r.kills} (${r.killsWithVictims})`,
      String(r.victims),
      ms(r.p50ResumeMs),
      ms(r.maxResumeMs),
      r.backend in STORM_TARGET_MS ? `≤ ${fmt(STORM_TARGET_MS[r.backend] ?? 0)}` : '—',
      fmt(STORM_BEFORE_MS[r.backend] ?? Number.NaN),
      String(r.lost),
      String(r.stepsRunTwice),
      String(r.overlaps),
      fmt(r.workSeconds),
    ]),
  };
}

function backlogTable(results: BenchResults): Table {
  return {
    title: 'Backlog drained by worker processes (one-step no-op transactions, median of runs)',
    headers: [
      'backend',
      'processes × workers',
      'transactions',
      'tx/s',
      'tx/s of each run',
      'worker CPU µs/tx',
      'server CPU µs/tx',
      'before (issue 17)',
      'a simple queue (issue 17)',
      'target',
    ],
    rows: results.backlog.map((r) => {
      const key = `${r.backend} ${r.processes}×${r.workers}`;
      return [
        r.backend,
        `${r.processes} × ${r.workers}`,
        String(r.txs),
        fmt(r.txPerSec),
        r.runs.map((run) => fmt(Math.round(run.txPerSec))).join(', '),
        fmt(r.workerCpuUsPerTx),
        r.serverCpuUsPerTx === undefined ? '—' : fmt(r.serverCpuUsPerTx),
        BACKLOG_BEFORE[key] ?? '—',
        BACKLOG_QUEUE[key] ?? '—',
        atLeast(BACKLOG_TARGET[key]),
      ];
    }),
  };
}

function processLatencyTable(rows: readonly LatencyRow[]): Table {
  return {
    title: 'Seed-to-start latency from another process, idle engine (ms)',
    headers: [
      'backend',
      'p50',
      'p99',
      'max',
      'samples',
      'p50 before (issue 17)',
      'a simple queue',
      'target p50',
    ],
    rows: rows.map((r) => [
      r.backend,
      ms(r.p50Ms),
      ms(r.p99Ms),
      ms(r.maxMs),
      String(r.samples),
      LATENCY_BEFORE[r.backend] ?? '—',
      LATENCY_QUEUE[r.backend] ?? '—',
      LATENCY_TARGET[r.backend] ?? '—',
    ]),
  };
}

function poolsTable(results: BenchResults): Table {
  return {
    title: 'Fast-op latency, seed to finish, behind slow work (ms)',
    headers: ['backend', 'workers', 'slow queued', 'p50', 'p99', 'max', 'samples'],
    rows: results.pools.map((r) => [
      r.backend,
      r.layout,
      String(r.slowBacklog),
      ms(r.p50Ms),
      ms(r.p99Ms),
      ms(r.maxMs),
      String(r.samples),
    ]),
  };
}

/** Backend calls per transaction; one column per operation any row called. */
export function roundTripTable(rows: readonly RoundTripRow[]): Table {
  const ops = [...new Set(rows.flatMap((r) => Object.keys(r.perTx)))];
  return {
    title: 'Backend calls per transaction (no-op steps, a backlog drained by one engine)',
    headers: ['backend', 'steps', 'own', 'total', ...ops, 'server'],
    rows: rows.map((r) => [
      r.backend,
      String(r.steps),
      fmt(r.own),
      fmt(r.total),
      ...ops.map((op) => fmt(r.perTx[op] ?? 0)),
      r.serverPerTx === undefined ? '—' : fmt(r.serverPerTx),
    ]),
  };
}

/** The tables of whatever modes ran, in the order of MODES. */
export function modeTables(results: BenchResults): Table[] {
  const out: Table[] = [];
  if (results.storm.length > 0) out.push(stormTable(results));
  if (results.backlog.length > 0) out.push(backlogTable(results));
  if (results.processLatency.length > 0) out.push(processLatencyTable(results.processLatency));
  if (results.pools.length > 0) out.push(poolsTable(results));
  if (results.roundTrips.length > 0) out.push(roundTripTable(results.roundTrips));
  const peers = peersTable(results);
  if (peers) out.push(peers);
  return out;
}

/** One sentence per backend and mode, against the issues' targets. */
export function modeSummary(results: BenchResults): string[] {
  const met = (ok: boolean) => (ok ? 'met' : 'not met');
  const lines: string[] = [];
  for (const r of results.storm) {
    const target = STORM_TARGET_MS[r.backend];
    const verdict =
      target === undefined ? '' : ` against ≤ ${fmt(target)} ms: ${met(r.maxResumeMs <= target)}`;
    lines.push(
      `${r.backend}: storm max kill-to-resume ${fmt(r.maxResumeMs)} ms${verdict} ` +
        `(${r.victims} victims of ${r.killsWithVictims} kills); lost ${r.lost}, overlaps ${r.overlaps}.`,
    );
  }
  for (const r of results.backlog) {
    const target = BACKLOG_TARGET[`${r.backend} ${r.processes}×${r.workers}`];
    if (target === undefined) continue;
    lines.push(
      `${r.backend}: backlog ${r.processes} × ${r.workers} ${fmt(r.txPerSec)} tx/s against ` +
        `${atLeast(target)}: ${met(r.txPerSec >= target)}.`,
    );
  }
  for (const backend of new Set(results.pools.map((r) => r.backend))) {
    const p99 = (layout: string, slow: boolean) =>
      results.pools.find(
        (r) => r.backend === backend && r.layout === layout && r.slowBacklog > 0 === slow,
      )?.p99Ms ?? Number.NaN;
    const [pools, single] = [POOL_LAYOUTS[0]?.name ?? '', POOL_LAYOUTS[1]?.name ?? ''];
    lines.push(
      `${backend}: fast-op p99 behind the slow backlog ${fmt(p99(pools, true))} ms with pools, ` +
        `${fmt(p99(single, true))} ms with ${single} (no backlog: ${fmt(p99(pools, false))} and ` +
        `${fmt(p99(single, false))} ms).`,
    );
  }
  return lines.map((l) => `- ${l}`);
}
