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

/** The method by which a step of the engine's own is given the engine running it. */
export const BIND_SCOPE = Symbol('fate.bindScope');

/** A step that needs the engine running it (the child steps of `awaitChildren`). */
export interface ScopedStep {
  [BIND_SCOPE](scope: ChildScope): void;
}

/**
 * Gives `repo` the engine running it when it is one of the engine's own child steps, which
 * user code builds without the engine (`awaitChildren`): the runner calls it on every step
 * it rebuilds from the stack or gets back from a `call`, before any of the step's methods.
 * (An `AsyncLocalStorage` around each run did this before: it cost every promise of the
 * process a hook, about a tenth of an engine's CPU on a backlog of no-op steps.)
 */
export function bindScope(repo: unknown, scope: ChildScope | undefined): void {
  const step = repo as Partial<ScopedStep> | undefined;
  if (scope && typeof step?.[BIND_SCOPE] === 'function') step[BIND_SCOPE](scope);
}

/** The scope a child step was given; outside an engine there is none. */
export function scopeOf(scope: ChildScope | undefined): ChildScope {
  if (!scope) throw new Error('awaitChildren steps run only inside a Fate engine');
  return scope;
}
