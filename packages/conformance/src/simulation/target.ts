import { dropMemoryNamespace, MemoryBackend, type StoreBackend } from '@fate/core';
import type { AdminOps } from './admin.js';
import type { History } from './history.js';

/** Where a simulation runs: the memory backend in virtual time, or a real store in real time. */
export interface SimTarget {
  /** A fresh, unopened backend client on one store (`namespace` names the world's store). */
  backend(namespace: string): StoreBackend;
  /** Virtual time and deterministic randomness (memory backend only). Default true. */
  readonly virtual?: boolean;
  /** Calls apply synchronously when made (the memory backend). Default: same as `virtual`. */
  readonly atomic?: boolean;
  /** Admin operations. Default `coreAdmin`. */
  readonly admin?: AdminOps;
  /** When the quiet end begins (ms from the start). Default `SCENARIO_MS`. */
  readonly scenarioMs?: number;
  /** How long the quiet end may take before what is unfinished counts as stuck. Default 120 s. */
  readonly quietMaxMs?: number;
  /** Removes the world's store afterwards. */
  drop?(namespace: string): Promise<void> | void;
}

export interface SimResult {
  readonly violations: string[];
  readonly history: History;
  /** Virtual (or real) ms the run took, quiet end included. */
  readonly ms: number;
}

/** The memory backend, one namespace per world. */
export const memoryTarget: SimTarget = {
  backend: (namespace) => new MemoryBackend(namespace),
  drop: (namespace) => dropMemoryNamespace(namespace),
};
