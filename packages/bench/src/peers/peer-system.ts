import type { BackendName } from '../services/backends.js';

// A job queue measured beside fate on the same backlog: the parent's side (a fresh queue per
// run, seeding, counting) and the process side (consumers in a forked process).

export type PeerName = 'bullmq' | 'plainjob' | 'graphile-worker';

/** Where one run's queue lives; given to the peer's processes as JSON. */
export interface PeerTarget {
  readonly peer: PeerName;
  /** A Redis or PostgreSQL URL, or the SQLite file. */
  readonly url: string;
  /** The run's own queue: a key prefix (BullMQ) or a schema (graphile-worker). */
  readonly queue: string;
}

/** One run's queue, from the parent: fresh, seeded, counted, removed. */
export interface PeerQueue {
  readonly target: PeerTarget;
  /** Adds `n` no-op jobs in batches (the peer's bulk add), untimed. */
  seedMany(n: number): Promise<void>;
  /** Adds one no-op job; its id as the consumer reports it. */
  seedOne(): Promise<{ id: string }>;
  /** Jobs the store holds as done (or, where done jobs are deleted, seeded minus left). */
  done(seeded: number): Promise<number>;
  /** Closes the clients and removes the queue's data. */
  destroy(): Promise<void>;
}

/** A peer ready to hand out fresh queues. */
export interface PeerSystem {
  readonly name: PeerName;
  /** The installed version (from its package.json). */
  readonly version: string;
  /** The fate backend on the same store, to compare with. */
  readonly store: BackendName;
  /** Where the data lives, for the report. */
  readonly where: string;
  open(): Promise<PeerQueue>;
  /** CPU seconds the server has used so far, where there is a server. */
  serverCpuSeconds?(): Promise<number>;
  /** Stops a server this script started. */
  stop(): Promise<void>;
}

/** What a consumer process tells the process script about each job. */
export interface PeerHooks {
  /** A job's processor was called (only when `trace`). */
  readonly onStart?: (id: string) => void;
  readonly onFinished: () => void;
}

/** The consumers of one process: prepared (connected) first, started on `go`. */
export interface PeerConsumer {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A logger that drops everything: the peers log nothing the benchmark would pay for. */
export const SILENT = {
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
};
