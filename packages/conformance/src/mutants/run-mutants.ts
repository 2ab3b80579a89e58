import { afterEach, beforeAll, beforeEach, describe } from 'vitest';
import type { ConformanceTarget, StoreFixture } from '../fixture.js';
import { runStoreConformance } from '../index.js';
import { type BackendMutant, MutantShared } from './mutant.js';

/** How `runMutantConformance` runs. */
export interface MutantRunOptions {
  /** Run only the mutants with these names. */
  readonly only?: readonly string[];
  /**
   * Stop a mutant's run at its first failing case (default): the rest are skipped. False
   * runs every case against every mutant, to see all the cases that kill each one.
   */
  readonly bail?: boolean;
  /**
   * The backend's own cases, registered inside each mutant's run after the suite (and
   * counted like its cases): for mutants of a backend's insides that only a look behind
   * the contract sees at once. They get the unmutated target and the mutant; a backend
   * they open must go through `mutant.wrap`.
   */
  readonly additions?: (target: ConformanceTarget, mutant: BackendMutant) => void;
}

/**
 * The store conformance suite, once per mutant, on `target`'s data with every client's
 * backend wrapped in the mutant. Each mutant's run is a describe titled
 * `<target> mutant <name> #<promise>` (or `control` for the allowed ones), so a report can
 * read who failed which case. The fixture's own `open` and `url` are not used (they would
 * bypass the mutant), so cases needing child processes skip.
 */
export function runMutantConformance(
  target: ConformanceTarget,
  mutants: readonly BackendMutant[],
  options: MutantRunOptions = {},
): void {
  const names = new Set(mutants.map((m) => m.name));
  if (names.size !== mutants.length) throw new Error('mutant names must be unique');
  for (const name of options.only ?? []) {
    if (!names.has(name)) throw new Error(`no mutant named ${name}`);
  }
  const chosen = options.only ? mutants.filter((m) => options.only?.includes(m.name)) : mutants;
  for (const mutant of chosen) {
    const kind = mutant.allowed ? 'control' : 'mutant';
    describe(`${target.name} ${kind} ${mutant.name} #${mutant.promise}`, () => {
      let killed = false;
      let missing: string | undefined;
      const { requires } = mutant;
      if (requires) {
        beforeAll(async () => {
          const fixture = await target.factory();
          try {
            if (!fixture.backend().capabilities[requires]) missing = requires;
          } finally {
            await fixture.destroy();
          }
        });
      }
      beforeEach((context) => {
        if (missing) context.skip(`not applicable: the backend declares no ${missing}`);
        if (killed) context.skip('killed already');
      });
      if (options.bail !== false && !mutant.allowed) {
        afterEach((context) => {
          if (context.task.result?.state === 'fail') killed = true;
        });
      }
      runStoreConformance(mutated(target, mutant));
      const { additions } = options;
      if (additions)
        describe(`${target.name}: the backend's own cases`, () => additions(target, mutant));
    });
  }
}

function mutated(target: ConformanceTarget, mutant: BackendMutant): ConformanceTarget {
  return {
    name: target.name,
    async factory(): Promise<StoreFixture> {
      const fixture = await target.factory();
      const shared = new MutantShared();
      return {
        backend: () => mutant.wrap(fixture.backend(), shared),
        corrupt: (id, field) => fixture.corrupt(id, field),
        leftovers: () => fixture.leftovers(),
        destroy: () => fixture.destroy(),
      };
    },
  };
}
