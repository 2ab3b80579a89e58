import type { EngineMutant } from './engine-mutant.js';
import { finishMutants } from './finish-mutants.js';
import { runMutants } from './run-mutants.js';
import { schedulingMutants } from './scheduling-mutants.js';
import { statusMutants } from './status-mutants.js';

export {
  type EngineMutant,
  type HandleWrappers,
  handles,
  overriding,
  type RepoOverrides,
  repos,
  rewritingCommits,
} from './engine-mutant.js';
export { runEngineMutantConformance } from './run-engine-mutants.js';

/** Every engine mutant (promises 61–76 of `mutants/README.md`). */
export const engineMutants: readonly EngineMutant[] = [
  ...statusMutants,
  ...runMutants,
  ...finishMutants,
  ...schedulingMutants,
];
