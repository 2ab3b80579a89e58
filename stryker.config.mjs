// Stryker (`npm run test:stryker`, not in CI; see docs/mutation.md): mutates the engine's
// runner and client calls, the guard's reserved-transaction handle and the SQLite backend, and runs vitest.stryker.config.ts with per-test coverage, so each mutant
// runs only the cases that reach it.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.ts', related: false },
  coverageAnalysis: 'perTest',
  // messages are not promises: a changed error text is an equivalent mutant in all but name
  mutator: { excludedMutations: ['StringLiteral'] },
  mutate: [
    'packages/core/src/engine/runner.ts',
    'packages/core/src/engine/client-calls.ts',
    // the handle class (not its host interface) and the backend's contract methods (not
    // open/close, wake-ups or connection setup): a run within ~40 minutes on 2 shared cores
    'packages/core/src/guard/reserved-fate.ts:35-249',
    'packages/store-sqlite/src/sqlite-backend.ts:116-229',
  ],
  ignorePatterns: ['docs', 'packages/*/dist', 'packages/bench', 'packages/cli', '.fate-test'],
  concurrency: 2,
  timeoutMS: 10_000,
  timeoutFactor: 1.5,
  reporters: ['clear-text', 'progress-append-only', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
