import type { StoreBackend, StoreCapabilities } from '@fate/core';

/**
 * What the mutants of one fixture share (the clients of one data set): for mutants whose
 * bug spans clients, e.g. a wake-up that one client's insertMany never publishes.
 */
export class MutantShared {
  /** While positive, wake-ups reaching this fixture's listeners are dropped. */
  muted = 0;
  /** Lock ids that have a liveness record, for mutants of `heartbeat`. */
  readonly heartbeats = new Set<string>();
}

/**
 * One broken promise of the `StoreBackend` contract, as a wrapper around a working
 * backend: every call goes through, except the one the mutant gets wrong. A wrapper works
 * on any backend; where a mutant leans on how the memory backend behaves inside (timing,
 * clock), `needs` says so.
 */
export interface BackendMutant {
  /** Short, unique, kebab-case: `write-fences-lock-only`. */
  readonly name: string;
  /** Which promise of the list in `mutants/README.md` it breaks (its number). */
  readonly promise: number;
  /** The bug, in one sentence. */
  readonly breaks: string;
  /**
   * A control: behaviour the contract allows (a hint not taken, a record kept longer). The
   * suite must NOT fail it; if it does, a case relies on something never promised.
   */
  readonly allowed?: boolean;
  /** What of a backend's inside the mutant relies on, when it is not a pure wrapper. */
  readonly needs?: string;
  /**
   * A capability the broken promise exists only with (wake-ups): on a backend that does not
   * declare it, the suite skips the cases and the mutant is reported as not applicable.
   */
  readonly requires?: keyof {
    [K in keyof StoreCapabilities as StoreCapabilities[K] extends boolean ? K : never]: true;
  };
  wrap(backend: StoreBackend, shared: MutantShared): StoreBackend;
}
