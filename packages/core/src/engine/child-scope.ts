import { AsyncLocalStorage } from 'node:async_hooks';
import type { FatesStore } from '../contract/fates-store.js';
import type { StepRegistry } from '../step.js';

/** What the engine's own child steps need from the engine running them. */
export interface ChildScope {
  readonly store: FatesStore;
  readonly steps: StepRegistry<unknown>;
  /** Wakes this engine's work finder (children were seeded). */
  wake(): void;
  /** Counts a parent woken by a child this engine finished (a metric). */
  woken(): void;
}

/**
 * The engine running the current transaction, for the child steps (`awaitChildren`), which
 * are built by user code without it: every run of a worker is inside `childScope.run`.
 */
export const childScope = new AsyncLocalStorage<ChildScope>();

export function currentScope(): ChildScope {
  const scope = childScope.getStore();
  if (!scope) throw new Error('awaitChildren steps run only inside a Fate engine');
  return scope;
}
