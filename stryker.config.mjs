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
    'packages/core/src/store/reserved-fate.ts',
    'packages/store-sqlite/src/sqlite-backend.ts',
  ],
  ignorePatterns: ['docs', 'packages/*/dist', 'packages/bench', 'packages/cli', '.fate-test'],
  concurrency: 2,
  timeoutMS: 20_000,
  timeoutFactor: 2,
  reporters: ['clear-text', 'progress-append-only', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
