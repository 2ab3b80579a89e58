import { runSimulationSuite } from '@fate/conformance/simulation';
import { startPostgres } from '@fate/test-services';
import { afterAll } from 'vitest';
import { postgresFixture } from './postgres-fixture.js';

// One database for the file; every run gets its own schema in it.
let service: ReturnType<typeof startPostgres> | undefined;

afterAll(async () => {
  await (await service)?.stop();
});

runSimulationSuite({
  name: 'postgres',
  factory: async () => {
    service ??= startPostgres();
    return postgresFixture((await service).url);
  },
});
