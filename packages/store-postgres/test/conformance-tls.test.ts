import { runConformance } from '@fate/conformance';
import { startPostgres } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { schemaOwner } from './postgres-roles.js';
import { reusingFactory } from './postgres-schema-reuse.js';

// Both suites over TLS (sslmode=verify-full against a CA made at test time, on a private
// cluster with ssl=on), each fixture as a role with a password that owns its schema and
// has no other right beyond PUBLIC's (connect to the database): the deployment the README
// recommends. A role and its schema go from case to case, emptied in between
// (postgres-schema-reuse.ts). The plain connection (conformance.test.ts) runs the store suite.
const postgres = useService(() => startPostgres({ tls: true }));

runConformance({
  name: 'postgres over TLS as a role owning its schema',
  factory: reusingFactory(postgres, schemaOwner, (_, owner) => owner.url),
});
