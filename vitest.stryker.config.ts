import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SLICES } from './scripts/stryker/slices.mjs';

// What Stryker runs (`npm run test:stryker`, see docs/mutation.md): the tests of the slice
// FATE_STRYKER_SLICE names (scripts/stryker/slices.mjs), with the packages resolved to their
// TypeScript sources (not dist/), so the mutants Stryker writes into src/ are what the tests
// load. Cases that start child processes skip: the children would load dist/.
const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const pkg = (name: string, path = 'index') =>
  ({
    find: new RegExp(`^@fate/${name}$`),
    replacement: src(`packages/${name}/src/${path}.ts`),
  }) as const;
const slice = SLICES[process.env.FATE_STRYKER_SLICE ?? 'runner'];
if (!slice) throw new Error(`FATE_STRYKER_SLICE names no slice (scripts/stryker/slices.mjs)`);

export default defineConfig({
  resolve: {
    alias: [
      pkg('core'),
      pkg('sql-common'),
      pkg('store-sqlite'),
      pkg('store-postgres'),
      pkg('store-redis'),
      pkg('store-zk'),
      {
        find: /^@fate\/store-redis\/internal$/,
        replacement: src('packages/store-redis/src/internal.ts'),
      },
      {
        find: /^@fate\/store-zk\/internal$/,
        replacement: src('packages/store-zk/src/internal.ts'),
      },
      pkg('conformance'),
      {
        find: /^@fate\/conformance\/faulty-backend$/,
        replacement: src('packages/conformance/src/faults/faulty-backend.ts'),
      },
      {
        find: /^@fate\/conformance\/simulation$/,
        replacement: src('packages/conformance/src/simulation/index.ts'),
      },
    ],
  },
  test: {
    include: slice.tests,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
