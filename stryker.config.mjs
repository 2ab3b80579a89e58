// Stryker (`npm run test:stryker [slice]`, not in CI; see docs/mutation.md): mutates one slice
// of the source (scripts/stryker/slices.mjs, named by FATE_STRYKER_SLICE) and runs the
// slice's tests through vitest.stryker.config.ts with per-test coverage, so each mutant
// runs only the cases that reach it.
import { SLICES } from './scripts/stryker/slices.mjs';

const name = process.env.FATE_STRYKER_SLICE ?? 'runner';
const slice = SLICES[name];
if (!slice) {
  throw new Error(`FATE_STRYKER_SLICE=${name} names no slice; one of ${Object.keys(SLICES)}`);
}

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.ts', related: false },
  coverageAnalysis: 'perTest',
  // messages are not promises: a changed error text is an equivalent mutant in all but name
  mutator: { excludedMutations: ['StringLiteral'] },
  mutate: slice.mutate,
  ignorePatterns: [
    'docs',
    'packages/*/dist',
    'packages/bench',
    'packages/cli',
    '.fate-test',
    'reports',
  ],
  concurrency: 2,
  timeoutMS: 10_000,
  timeoutFactor: 1.5,
  reporters: ['clear-text', 'progress-append-only', 'json', 'html'],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
