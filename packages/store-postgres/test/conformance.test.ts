import { runStoreConformance } from '@fate/conformance';
import { startPostgres } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { postgresFixture } from './postgres-fixture.js';

// The store suite on a plain connection to one database for the whole file (the machine's
// server, or a private cluster); every fixture gets its own schema in it. Both suites run
// over TLS as a role owning its schema (conformance-tls).
const postgres = useService(() => startPostgres());

runStoreConformance({
  name: 'postgres',
  factory: async () => postgresFixture((await postgres()).url),
});
