import type { Pool, PoolClient } from 'pg';

/**
 * Runs `fn` in one transaction on a connection of its own, opened by `begin`: committed
 * when `fn` returns, rolled back when anything throws. A connection whose transaction
 * failed half-way is not handed out again.
 */
export async function inTransaction<T>(
  pool: Pool,
  begin: string,
  fn: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let failed: unknown;
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    failed = err;
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release(failed instanceof Error ? failed : undefined);
  }
}
