import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './vitest.sequencer.js';

// Tests import the packages by name; they resolve to each package's built `dist/`
// (npm test builds first), so what is tested is what is published.
export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'docs/examples/**/*.test.ts'],
    // The backend author's example runs the full suites on the memory backend, which
    // packages/conformance/test does already; `npm run test:pack` runs the example itself,
    // against the packed packages as an outside author would.
    exclude: [...configDefaults.exclude, 'docs/examples/my-backend.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Three files at a time on 2 cores (vitest's default there is one): most of a file's
    // time is waiting on a service or a timeout. Measured on the whole suite here
    // (2026-12-02, 112 files): 2 workers 1,021 s with the cores ~65% busy, 3 workers 824 s
    // with them 80-100% busy, all 2,748 cases passing. Every wait inside a case is bounded
    // and judged by margins that hold under that load.
    maxWorkers: 3,
    // the longest files first, so the run does not end on one of them alone
    sequence: { sequencer: LongestFirstSequencer },
    reporters: ['default'],
  },
});
