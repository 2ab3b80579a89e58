// Not part of `npm test`: `npm run test:stryker sqlite` runs it (docs/mutation.md). The store
// suite on SQLite, for Stryker's mutants of the SQLite backend and sql-common. Without the
// fixture's url, so the child-process cases (which load dist/, not the mutated sources) skip.
import { inProcessOnly, runStoreConformance } from '@fate/conformance';
import { sqliteFixture } from './sqlite-fixture.js';

runStoreConformance({ name: 'sqlite', factory: inProcessOnly(async () => sqliteFixture()) });
