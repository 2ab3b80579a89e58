import { runStoreConformance } from '@fate/conformance';
import { startPostgres } from '@fate/test-services';
import { useService } from '@fate/test-services/use-service';
import { schemaOwner } from './postgres-roles.js';
import { reusingFactory } from './postgres-schema-reuse.js';

// The store suite over TLS (sslmode=verify-full against a CA made at test time, on a
// private cluster with ssl=on), each fixture as a role with a password that owns its schema
// and has no other right beyond PUBLIC's (connect to the database): the deployment the
// README recommends. Every call the engine makes is a store call this suite makes, so it
// shows each works over TLS under that role. A role and its schema go from case to case,
// emptied in between (postgres-schema-reuse.ts). The engine suite runs on the plain
// connection (conformance.test.ts): over TLS it took 2.4 times as long (a session there
// costs ~45 ms against ~17 ms), and CI time is short.
const postgres = useService(() => startPostgres({ tls: true }));

runStoreConformance({
  name: 'postgres over TLS as a role owning its schema',
  factory: reusingFactory(postgres, schemaOwner, (_, owner) => owner.url),
});
