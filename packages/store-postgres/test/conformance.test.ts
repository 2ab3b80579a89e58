import { runConformance } from '@fate/conformance';
import { startPostgres } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { newSchema } from './postgres-fixture.js';
import { reusingFactory } from './postgres-schema-reuse.js';

// Both suites on a plain connection to one database for the whole file (the machine's
// server, or a private cluster); a case gets a schema of its own, emptied after it and
// handed to a later case (postgres-schema-reuse.ts). The store suite runs again over TLS as
// a role owning its schema (conformance-tls).
const postgres = useService(() => startPostgres());

runConformance({
  name: 'postgres',
  factory: reusingFactory(postgres, async () => ({ schema: newSchema() })),
});
