import { runConformance } from '@fate/conformance';
import { startPostgres } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { postgresFixture } from './postgres-fixture.js';

// One database for the whole file (on the machine's server, or a private cluster); every
// fixture gets its own schema in it.
const postgres = useService(() => startPostgres());

runConformance({ name: 'postgres', factory: async () => postgresFixture((await postgres()).url) });
