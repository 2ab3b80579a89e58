import type { FateOptions, FatesStore, StepType } from '@fate/core';
import type { ConformanceTarget } from '../fixture.js';
import type { Recorder } from './steps.js';

/**
 * How an engine mutant reaches the engines the engine suite starts (test only: nothing of
 * the engine's own source changes). Each hook sees what `useEngines` hands a `Fate`.
 */
export interface EngineHooks {
  /** Wraps the store client handed to each engine (its runs, client calls and membership). */
  readonly store?: (store: FatesStore) => FatesStore;
  /** Wraps the step types each engine runs. */
  readonly steps?: (types: readonly StepType<Recorder>[]) => StepType<Recorder>[];
  /** Rewrites the options each engine is constructed with, as if it misread them. */
  readonly options?: (options: Partial<FateOptions<Recorder>>) => Partial<FateOptions<Recorder>>;
}

const hooked = new WeakMap<ConformanceTarget, EngineHooks>();

/**
 * `target` with `hooks` applied to every engine the engine suite starts on it. The fixture's
 * `url` and `open` are dropped: child processes would run an engine without the hooks, so
 * the cases needing them skip.
 */
export function withEngineHooks(target: ConformanceTarget, hooks: EngineHooks): ConformanceTarget {
  const mutated: ConformanceTarget = {
    name: target.name,
    async factory() {
      const fixture = await target.factory();
      return {
        backend: () => fixture.backend(),
        corrupt: (id, field) => fixture.corrupt(id, field),
        leftovers: () => fixture.leftovers(),
        destroy: () => fixture.destroy(),
      };
    },
  };
  hooked.set(mutated, hooks);
  return mutated;
}

/** The hooks `withEngineHooks` gave `target`; none for a target as a backend passes it. */
export function engineHooks(target: ConformanceTarget): EngineHooks {
  return hooked.get(target) ?? {};
}
