import { cpus, loadavg, totalmem } from 'node:os';
import type { PeerName } from '../peers/peer-system.js';
import type { BackendName } from '../services/backends.js';

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
  /**
   * `other-client`: seeded through a separate store client; `same-instance`: `fate.seed`;
   * `other-process`: the engine runs in a child process, the seed comes from this one.
   */
  readonly seededBy: 'other-client' | 'same-instance' | 'other-process';
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** One latency row's figures, ms. */
export type LatencyFigures = Pick<LatencyRow, 'samples' | 'p50Ms' | 'p99Ms' | 'maxMs'>;

export interface RecoveryRow {
  readonly backend: BackendName;
  /** Median over the trials: SIGKILL to the first held transaction's step starting elsewhere. */
  readonly ms: number;
  readonly trials: readonly number[];
  /** Transactions the killed instance held. */
  readonly held: number;
}

/** A crash storm: engine processes SIGKILLed one after another while they work. */
export interface StormRow {
  readonly backend: BackendName;
  readonly processes: number;
  /** Workers per process. */
  readonly workers: number;
  readonly txs: number;
  readonly steps: number;
  readonly kills: number;
  readonly killEveryMs: number;
  /** Kills that hit a process holding transactions. */
  readonly killsWithVictims: number;
  /** Transactions the killed processes held when killed, over all kills. */
  readonly victims: number;
  /** From a kill until each victim begins a step in another process: p50 and max, ms. */
  readonly p50ResumeMs: number;
  readonly maxResumeMs: number;
  /** Seeded transactions not SUCCESSFUL in the store when the run gave up (must be 0). */
  readonly lost: number;
  /** Step runs beyond one per step: steps run again after a kill cut them short. */
  readonly stepsRunTwice: number;
  /** Runs of one step by two processes overlapping in time while both were live (must be 0). */
  readonly overlaps: number;
  /** From the end of seeding (the kills' schedule starts) until the last step ended, s. */
  readonly workSeconds: number;
  /** The max kill-to-resume of each kill's victims, ms; NaN for a kill that hit none. */
  readonly maxResumeMsByKill: readonly number[];
}

/** A backlog drained by engine (or peer) processes: one run's figures. */
export interface BacklogRun {
  readonly txPerSec: number;
  /** CPU time of the draining processes per transaction, µs. */
  readonly processCpuUsPerTx: number;
  /** CPU time of the store's server per transaction (Redis `INFO cpu`), µs. */
  readonly serverCpuUsPerTx?: number;
}

export interface BacklogRow extends BacklogRun {
  readonly backend: BackendName;
  readonly processes: number;
  /** Workers per process. */
  readonly workers: number;
  readonly txs: number;
  /** Every run; the row's figures are the median of each over them. */
  readonly runs: readonly BacklogRun[];
}

/** A peer job queue's backlog drained by its processes (median of the runs, and each). */
export interface PeerRow extends BacklogRun {
  readonly system: PeerName;
  readonly version: string;
  readonly processes: number;
  /** Consumers (concurrency) per process. */
  readonly workers: number;
  readonly txs: number;
  readonly runs: readonly BacklogRun[];
}

/** A peer's seed-to-start latency from another process, ms. */
export interface PeerLatencyRow extends LatencyFigures {
  readonly system: PeerName;
  readonly version: string;
}

/** Seed-to-finish latency of a fast op, with or without a backlog of slow ones. */
export interface PoolsRow {
  readonly backend: BackendName;
  readonly layout: string;
  /** Slow transactions seeded before the fast ones (0: none). */
  readonly slowBacklog: number;
  readonly samples: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** Backend calls per transaction, by operation, counted by wrapping the backend. */
export interface RoundTripRow {
  readonly backend: BackendName;
  readonly steps: number;
  readonly txs: number;
  /** Calls per transaction of each operation called at least once. */
  readonly perTx: Readonly<Record<string, number>>;
  /** Calls of the transaction's own (insert, tryReserve, write, read, clearReservation). */
  readonly own: number;
  /** Scans, liveness and listings, per transaction over the run. */
  readonly background: number;
  readonly total: number;
  /**
   * What the store's server handled per transaction over the same span, where it says
   * (`BenchBackend.serverRequests`: Redis commands, ZooKeeper requests).
   */
  readonly serverPerTx?: number;
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
  readonly storm: StormRow[];
  /** Seed-to-start latency with the engine in another process (the backlog mode's). */
  readonly processLatency: LatencyRow[];
  readonly backlog: BacklogRow[];
  readonly pools: PoolsRow[];
  readonly roundTrips: RoundTripRow[];
  /** The peer job queues of `--mode peers`. */
  readonly peers: PeerRow[];
  readonly peerLatency: PeerLatencyRow[];
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
