import { defineConfig } from 'vitest/config';

// The mutation harness (`npm run test:mutants`): the store suite against deliberately broken
// backends, one file per backend, and the engine suite against deliberately broken engines. Cases that hang on a mutant end at a shorter timeout.
export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.mutants.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
});
