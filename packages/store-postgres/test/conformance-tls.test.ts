import { runConformance } from '@fate/conformance';
import { startPostgres } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { postgresFixture, withClient } from './postgres-fixture.js';
import { schemaOwner } from './postgres-roles.js';

// Both suites over TLS (sslmode=verify-full against a CA made at test time, on a private
// cluster with ssl=on), each fixture as a role with a password that owns its schema and
// has no other right beyond PUBLIC's (connect to the database): the deployment the README
// recommends. The plain connection (conformance.test.ts) runs the store suite.
const postgres = useService(() => startPostgres({ tls: true }));

const factory = async () => {
  const serverUrl = (await postgres()).url;
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

runConformance({ name: 'postgres over TLS as a role owning its schema', factory });
