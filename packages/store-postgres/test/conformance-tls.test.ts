import { runEngineConformance, runStoreConformance } from '@fate/conformance';
import { type PostgresTestService, startPostgres } from '@fate/test-services';
import { afterAll, beforeAll } from 'vitest';
import { postgresFixture, withClient } from './postgres-fixture.js';
import { schemaOwner } from './postgres-roles.js';

// Both suites over TLS (sslmode=verify-full against a CA made at test time, on a private
// cluster with ssl=on), each fixture as a role with a password that owns its schema and
// has no other right beyond PUBLIC's (connect to the database).
let service: Promise<PostgresTestService> | undefined;
const postgresService = () => {
  service ??= startPostgres({ tls: true });
  return service;
};

beforeAll(async () => {
  await postgresService();
});

afterAll(async () => {
  await (await service)?.stop();
});

const factory = async () => {
  const serverUrl = (await postgresService()).url;
  const owner = await schemaOwner(serverUrl);
  const fixture = postgresFixture(serverUrl, { schema: owner.schema, storeServer: owner.url });
  return {
    ...fixture,
    async destroy() {
      await fixture.destroy();
      await withClient(serverUrl, (c) => c.query(`DROP ROLE IF EXISTS ${owner.role}`));
    },
  };
};

runStoreConformance({ name: 'postgres over TLS as a role owning its schema', factory });
runEngineConformance({ name: 'postgres over TLS as a role owning its schema', factory });
