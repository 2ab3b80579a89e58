import type { FateStore } from '@fate/core';
import { type EngineMutant, handles, overriding, repos } from './engine-mutant.js';
import { finishMutants } from './finish-mutants.js';
import { gateMutants } from './gate-mutants.js';
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

/**
 * The control: every hook in place, changing nothing. The suite must pass it, or a failure of
 * a mutant could be the wrapping's, not the bug's.
 */
const wrappedUnchanged: EngineMutant = {
  name: 'wrapped-unchanged',
  promise: 61,
  allowed: true,
  breaks: 'nothing: the store client, its handles and the steps are wrapped and forward everything',
  hooks: {
    store: (store) => {
      const same = (handle: FateStore) => overriding(handle, {});
      return overriding(handles({ run: same, client: same })(store), {});
    },
    steps: repos({}),
    options: (options) => ({ ...options }),
  },
};

/** Every engine mutant (promises 61–79 of `mutants/README.md`), then the control. */
export const engineMutants: readonly EngineMutant[] = [
  ...statusMutants,
  ...runMutants,
  ...finishMutants,
  ...schedulingMutants,
  ...gateMutants,
  wrappedUnchanged,
];
