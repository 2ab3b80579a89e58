// Not part of `npm test`: `npm run test:stryker` runs it (docs/mutation.md). The store suite
// on SQLite, for Stryker's mutants of the SQLite backend. Without the fixture's url, so the
// child-process cases (which load dist/, not the mutated sources) skip.
import { runStoreConformance } from '@fate/conformance';
import { sqliteFixture } from './sqlite-fixture.js';

runStoreConformance({
  name: 'sqlite',
  factory: async () => {
    const { backend, corrupt, leftovers, destroy } = sqliteFixture();
    return { backend, corrupt, leftovers, destroy };
  },
});
