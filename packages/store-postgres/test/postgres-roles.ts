import { newSchema, withClient } from './postgres-fixture.js';

/** A role owning only a fresh schema, and the store server URL as that role. */
export async function schemaOwner(serverUrl: string) {
  const schema = newSchema();
  const role = `fate_${schema}`;
  const password = `pw-${schema}`;
  await withClient(serverUrl, async (c) => {
    await c.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    await c.query(`CREATE SCHEMA ${schema} AUTHORIZATION ${role}`);
  });
  const url = new URL(serverUrl);
  url.username = role;
  url.password = password;
  return { schema, role, password, url: url.href };
}
