import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createFatesStore, type FatesStore, type StoreOptions } from '@fate/core';
import { createStoreBackend, type SqliteBackend } from '@fate/store-sqlite';
import Database from 'better-sqlite3';
import { afterEach, beforeEach } from 'vitest';
import { sqliteFixture } from './sqlite-fixture.js';

const run = promisify(execFile);
/** Child processes run here, so they resolve `@fate/*` like the tests. */
export const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
export const step = { type: 's', state: {} };

/** Per-test state of the backend tests: a fresh file, and clients closed after the test. */
export interface SqliteTest {
  fixture: ReturnType<typeof sqliteFixture>;
  /** A guarded client on the fixture's file. */
  store(options?: StoreOptions): Promise<FatesStore>;
  /** An opened raw backend on `url` (the fixture's file by default). */
  backend(url?: string): Promise<SqliteBackend>;
}

/** Gives every test of the enclosing `describe` a fresh file; closes what it opened. */
export function useSqlite(): SqliteTest {
  let closers: Array<() => Promise<void>> = [];
  const t = {
    async store(options?: StoreOptions) {
      const store = await createFatesStore(t.fixture.backend(), options);
      closers.push(() => store.close());
      return store;
    },
    async backend(url = t.fixture.url) {
      const backend = createStoreBackend(url);
      await backend.open();
      closers.push(() => backend.close());
      return backend;
    },
  } as SqliteTest;
  beforeEach(() => {
    t.fixture = sqliteFixture();
  });
  afterEach(async () => {
    const open = closers;
    closers = [];
    await Promise.allSettled(open.map((close) => close()));
    await t.fixture.destroy();
  });
  return t;
}

/** Runs `fn` on a raw connection of its own to `file`. */
export function withRaw<T>(file: string, fn: (db: Database.Database) => T): T {
  const db = new Database(file, { timeout: 5_000 });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** The `EXPLAIN QUERY PLAN` details of `sql`, every parameter bound to '80000000'. */
export function plan(db: Database.Database, sql: string): string[] {
  const params = Array.from(sql.matchAll(/\?/g), () => '80000000');
  return db
    .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`)
    .all(...params)
    .map((row) => row.detail);
}

/** Runs an ES module script with node in the package directory; resolves to its stdout. */
export async function runScript(
  script: string,
  env: Record<string, string> = {},
  options: { timeout?: number; uid?: number; gid?: number } = {},
): Promise<string> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, ...env },
    killSignal: 'SIGKILL',
    ...options,
  });
  return stdout;
}
