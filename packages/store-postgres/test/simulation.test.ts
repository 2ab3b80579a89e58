import { runSimulationSuite } from '@fate/conformance/simulation';
import { startPostgres } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { postgresFixture } from './postgres-fixture.js';

// One database for the file; every run gets its own schema in it.
const postgres = useService(() => startPostgres());

runSimulationSuite({
  name: 'postgres',
  factory: async () => postgresFixture((await postgres()).url),
});
