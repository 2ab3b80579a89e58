// Not part of `npm test`: `npm run test:stryker postgres` runs it (docs/mutation.md). The
// store suite on the local PostgreSQL, for Stryker's mutants of the PostgreSQL backend.
// Child-process cases skip: they would load dist/.
import { inProcessOnly, runStoreConformance } from '@fate/conformance';
import { startPostgres } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { newSchema } from './postgres-fixture.js';
import { reusingFactory } from './postgres-schema-reuse.js';

const postgres = useService(() => startPostgres());

runStoreConformance({
  name: 'postgres',
  factory: inProcessOnly(reusingFactory(postgres, async () => ({ schema: newSchema() }))),
});
