import { cpus, loadavg, totalmem } from 'node:os';
import type { BackendName } from './bench-backends.js';

/** The machine a run was measured on. */
export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly node: string;
  readonly platform: string;
  readonly date: string;
  /** 1-minute load average when the run started: a busy machine skews every figure. */
  readonly loadAverage: number;
}

export interface ScanRow {
  readonly backend: BackendName;
  readonly partitions: number;
  readonly strategy: 'hash' | 'range';
  /** Transactions in the store (10% runnable). */
  readonly txs: number;
  /** Mean over the partitions of the median items one instance's scan read. */
  readonly itemsReadPerInstance: number;
  /** Mean over the partitions of the median wall time of one scan (filtering included), ms. */
  readonly msPerScan: number;
  /** Mean runnable ids one instance's scan returned (the same for both strategies). */
  readonly foundPerInstance: number;
  /** Runnable ids found by all partitions together; equals txs / 10 when scans are right. */
  readonly foundTotal: number;
}

export interface ThroughputRow {
  readonly backend: BackendName;
  readonly steps: number;
  readonly instances: number;
  readonly workers: number;
  readonly txs: number;
  readonly txPerSec: number;
  readonly seconds: number;
  /** How the instances ran. */
  readonly mode: string;
  /** Shards of the store (a sharded backend runs one instance per shard). */
  readonly shards?: number;
  /** Commands each server ran during the run (a Redis Cluster's masters). */
  readonly commandsPerNode?: Record<string, number>;
}

export interface LatencyRow {
  readonly backend: BackendName;
  /** `other-client`: seeded through a separate store client; `same-instance`: `fate.seed`. */
  readonly seededBy: 'other-client' | 'same-instance';
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

export interface RecoveryRow {
  readonly backend: BackendName;
  /** Median over the trials: SIGKILL to the first held transaction's step starting elsewhere. */
  readonly ms: number;
  readonly trials: readonly number[];
  /** Transactions the killed instance held. */
  readonly held: number;
}

/** A measurement that could not be made (a backend not working, a timeout). */
export interface BenchError {
  readonly backend: BackendName;
  readonly measure: string;
  readonly message: string;
}

/** A backend as the report describes it, with what it declares about itself. */
export interface BackendInfo {
  readonly name: BackendName;
  readonly where: string;
  /** `capabilities.sortedScan`: a range scan reads only its range. */
  readonly sortedScan?: boolean;
  /** `capabilities.wakeups`: seeds wake other clients' finders. */
  readonly wakeups?: boolean;
}

export interface BenchResults {
  readonly machine: Machine;
  /** How this run was started. */
  readonly command: string;
  readonly quick: boolean;
  readonly backends: BackendInfo[];
  readonly scan: ScanRow[];
  readonly throughput: ThroughputRow[];
  readonly latency: LatencyRow[];
  readonly recovery: RecoveryRow[];
  readonly errors: BenchError[];
}

export function describeMachine(): Machine {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString(),
    loadAverage: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}

/** One line about a backend for the reports. */
export function describeBackend(b: BackendInfo): string {
  const yes = (v: boolean | undefined) => (v === undefined ? '?' : v ? 'yes' : 'no');
  return `${b.name}: ${b.where}; sorted scans: ${yes(b.sortedScan)}, push wake-ups: ${yes(b.wakeups)}`;
}

/** Progress for humans, always on stderr so `--json` keeps stdout clean. */
export function progress(message: string): void {
  process.stderr.write(`${message}\n`);
}
