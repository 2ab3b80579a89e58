import { controlMutants } from './controls.js';
import { fencingMutants } from './fencing-mutants.js';
import { livenessMutants } from './liveness-mutants.js';
import type { BackendMutant } from './mutant.js';
import { recordMutants } from './record-mutants.js';
import { reserveMutants } from './reserve-mutants.js';
import { scanMutants } from './scan-mutants.js';
import { textMutants } from './text-mutants.js';
import { writeMutants } from './write-mutants.js';

export { forwarding, type Overrides, rewrite, setDeferral } from './forwarding.js';
export { type BackendMutant, MutantShared } from './mutant.js';
export { type MutantRunOptions, runMutantConformance } from './run-mutants.js';

/**
 * Every mutant that works as a wrapper around any `StoreBackend`, then the controls (what
 * the contract allows, which the suite must pass). See `README.md` for the promises.
 */
export const backendMutants: readonly BackendMutant[] = [
  ...fencingMutants,
  ...reserveMutants,
  ...writeMutants,
  ...recordMutants,
  ...textMutants,
  ...scanMutants,
  ...livenessMutants,
  ...controlMutants,
];
export {
  type EngineMutant,
  engineMutants,
  handles,
  overriding,
  repos,
  rewritingCommits,
  runEngineMutantConformance,
} from './engine/index.js';
