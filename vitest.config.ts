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
    // Two files at a time (vitest's default on 2 cores is one): most of a file's time is
    // waiting on a service or a timeout, so the suite's wall time nearly halves. Every wait
    // inside a case is bounded and judged by margins that hold under that load.
    maxWorkers: 2,
    // the longest files first, so the run does not end on one of them alone
    sequence: { sequencer: LongestFirstSequencer },
    reporters: ['default'],
  },
});
