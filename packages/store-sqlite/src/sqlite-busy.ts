import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';

/**
 * How long one attempt may wait for another process's lock inside SQLite, ms.
 * better-sqlite3 is synchronous, so SQLite's own busy wait blocks the whole event loop:
 * timers, heartbeats, every other worker. It is kept this short, and longer waits are
 * made of attempts with the event loop free between them.
 */
export const SYNC_BUSY_MS = 10;

/** Pauses between attempts grow up to this, ms (jittered, so waiting processes spread). */
const MAX_PAUSE_MS = 20;

/**
 * SQLITE_BUSY and its extended codes (BUSY_SNAPSHOT, BUSY_RECOVERY, BUSY_TIMEOUT): the
 * statement or transaction was rolled back without applying anything, so running it again
 * is safe, whatever it was.
 */
export function isBusy(err: unknown): boolean {
  return err instanceof Database.SqliteError && err.code.startsWith('SQLITE_BUSY');
}

/**
 * Runs `attempt` (synchronous statements) until it does not fail with SQLITE_BUSY, for up
 * to `timeoutMs` overall; each attempt blocks for at most `SYNC_BUSY_MS` waiting, and the
 * pauses between attempts are timers, so the event loop is never held for long. Past the
 * timeout the last busy error is thrown.
 */
export async function retryBusy<T>(attempt: () => T, timeoutMs: number): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (let pause = 1; ; pause = Math.min(2 * pause, MAX_PAUSE_MS)) {
    try {
      return attempt();
    } catch (err) {
      const left = deadline - performance.now();
      if (!isBusy(err) || left <= 0) throw err;
      await sleep(Math.min(left, pause / 2 + Math.random() * pause));
    }
  }
}
