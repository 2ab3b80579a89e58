import { POOL_LAYOUTS } from '../measurements/pools.js';
import { STORM } from '../measurements/storm.js';
import { peerRunsTable, peersTable } from '../peers/peers-table.js';
import type { BenchResults, LatencyRow, RoundTripRow } from './results.js';
import { fmt, type Table } from './table.js';

// The tables of the modes beside the default run (storm, backlog, pools, roundtrips, peers).

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
      String(r.lost),
      String(r.stepsRunTwice),
      String(r.overlaps),
      fmt(r.workSeconds),
    ]),
  };
}

function backlogTable(results: BenchResults): Table {
  return {
    title: 'Backlog drained by engine processes (one-step no-op transactions, median of runs)',
    headers: [
      'backend',
      'processes × workers',
      'transactions',
      'tx/s',
      'tx/s of each run',
      'process CPU µs/tx',
      'server CPU µs/tx',
    ],
    rows: results.backlog.map((r) => [
      r.backend,
      `${r.processes} × ${r.workers}`,
      String(r.txs),
      fmt(r.txPerSec),
      r.runs.map((run) => fmt(Math.round(run.txPerSec))).join(', '),
      fmt(r.processCpuUsPerTx),
      r.serverCpuUsPerTx === undefined ? '—' : fmt(r.serverCpuUsPerTx),
    ]),
  };
}

function processLatencyTable(rows: readonly LatencyRow[]): Table {
  return {
    title: 'Seed-to-start latency from another process, idle engine (ms)',
    headers: ['backend', 'p50', 'p99', 'max', 'samples'],
    rows: rows.map((r) => [r.backend, ms(r.p50Ms), ms(r.p99Ms), ms(r.maxMs), String(r.samples)]),
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
  for (const table of [peerRunsTable(results), peersTable(results)]) if (table) out.push(table);
  return out;
}

/** One sentence per backend and mode. */
export function modeSummary(results: BenchResults): string[] {
  const lines: string[] = [];
  for (const r of results.storm) {
    lines.push(
      `${r.backend}: storm max kill-to-resume ${fmt(r.maxResumeMs)} ms ` +
        `(${r.victims} victims of ${r.killsWithVictims} kills); lost ${r.lost}, overlaps ${r.overlaps}.`,
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
