import { defineConfig } from 'vitest/config';

// Tests import the packages by name; they resolve to each package's built `dist/`
// (npm test builds first), so what is tested is what is published.
export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'docs/examples/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
