import { runEngineConformance, runStoreConformance } from '@fate/conformance';
import { startPostgres } from '@fate/test-services';
import { afterAll, beforeAll } from 'vitest';
import { postgresFixture } from './postgres-fixture.js';

// One database for the whole file (on the machine's server, or a private cluster); every
// fixture gets its own schema in it.
let service: ReturnType<typeof startPostgres> | undefined;
const postgresService = () => {
  service ??= startPostgres();
  return service;
};

beforeAll(async () => {
  await postgresService();
});

afterAll(async () => {
  await (await service)?.stop();
});

const factory = async () => postgresFixture((await postgresService()).url);

runStoreConformance({ name: 'postgres', factory });
runEngineConformance({ name: 'postgres', factory });
