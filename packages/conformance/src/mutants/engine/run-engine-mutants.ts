import { afterEach, beforeEach, describe } from 'vitest';
import { withEngineHooks } from '../../engine/engine-hooks.js';
import type { ConformanceTarget } from '../../fixture.js';
import { runEngineConformance } from '../../index.js';
import type { MutantRunOptions } from '../run-mutants.js';
import type { EngineMutant } from './engine-mutant.js';

/**
 * The engine conformance suite, once per engine mutant, on `target`'s data, every engine the
 * suite starts carrying the mutant's hooks. Each run is a describe titled
 * `<target> mutant <name> #<promise>`, as `runMutantConformance` does for backend mutants,
 * so the same reporter reads both. Cases needing child processes skip (they would run an
 * engine without the hooks).
 */
export function runEngineMutantConformance(
  target: ConformanceTarget,
  mutants: readonly EngineMutant[],
  options: MutantRunOptions = {},
): void {
  const names = new Set(mutants.map((m) => m.name));
  if (names.size !== mutants.length) throw new Error('mutant names must be unique');
  for (const name of options.only ?? []) {
    if (!names.has(name)) throw new Error(`no engine mutant named ${name}`);
  }
  const chosen = options.only ? mutants.filter((m) => options.only?.includes(m.name)) : mutants;
  for (const mutant of chosen) {
    const kind = mutant.allowed ? 'control' : 'mutant';
    describe(`${target.name} ${kind} ${mutant.name} #${mutant.promise}`, () => {
      let killed = false;
      beforeEach((context) => {
        if (killed) context.skip('killed already');
      });
      if (options.bail !== false && !mutant.allowed) {
        afterEach((context) => {
          if (context.task.result?.state === 'fail') killed = true;
        });
      }
      runEngineConformance(withEngineHooks(target, mutant.hooks));
    });
  }
}
