import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// What Stryker runs (`npm run test:stryker`, see docs/mutation.md): the engine suite and the
// store suite on the memory backend, the store suite on SQLite, and core's unit tests, with
// the packages resolved to their TypeScript sources (not dist/), so the mutants Stryker
// writes into src/ are what the tests load.
const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@fate\/core$/, replacement: src('packages/core/src/index.ts') },
      { find: /^@fate\/sql-common$/, replacement: src('packages/sql-common/src/index.ts') },
      { find: /^@fate\/store-sqlite$/, replacement: src('packages/store-sqlite/src/index.ts') },
      { find: /^@fate\/conformance$/, replacement: src('packages/conformance/src/index.ts') },
      {
        find: /^@fate\/conformance\/faulty-backend$/,
        replacement: src('packages/conformance/src/faults/faulty-backend.ts'),
      },
    ],
  },
  test: {
    include: [
      'packages/conformance/test/*.stryker.ts',
      'packages/store-sqlite/test/*.stryker.ts',
      'packages/core/test/core-units.test.ts',
      'packages/core/test/engine-units.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
