import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createFatesStore, type FatesStore, type StoreOptions } from '@fate/core';
import { createStoreBackend, type PostgresBackend } from '@fate/store-postgres';
import { type PostgresTestService, startPostgres } from '@fate/test-services';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, it } from 'vitest';
import { newSchema, storeUrl, TEST_POOL_SIZE, withClient } from './postgres-fixture.js';

const run = promisify(execFile);
/** Child processes run here, so they resolve `@fate/*` like the tests. */
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
export const step = { type: 's', state: {} };

/** Per-file server, per-test schema, clients closed after each test. */
export interface PostgresTest {
  service: PostgresTestService;
  /** This test's schema and its store URL. */
  schema: string;
  url: string;
  /** A guarded client on this test's schema. */
  store(options?: StoreOptions): Promise<FatesStore>;
  /** An opened raw backend on `url` (this test's by default). */
  backend(url?: string): Promise<PostgresBackend>;
  /** Runs `fn` on an admin connection to the test database. */
  sql<T>(fn: (client: pg.Client) => Promise<T>): Promise<T>;
}

/** A PostgreSQL for the file (`own`: one the tests may restart), a fresh schema per test. */
export function usePostgres(options: { own?: boolean } = {}): PostgresTest {
  let closers: Array<() => Promise<void>> = [];
  const t = {
    async store(storeOptions?: StoreOptions) {
      const store = await createFatesStore(createStoreBackend(t.url), storeOptions);
      closers.push(() => store.close());
      return store;
    },
    async backend(url = t.url) {
      const backend = createStoreBackend(url);
      await backend.open();
      closers.push(() => backend.close());
      return backend;
    },
    sql: <T>(fn: (client: pg.Client) => Promise<T>) => withClient(t.service.url, fn),
  } as PostgresTest;
  beforeAll(async () => {
    t.service = await startPostgres(options);
  });
  beforeEach(() => {
    t.schema = newSchema();
    t.url = storeUrl(t.service.url, { schema: t.schema, poolSize: TEST_POOL_SIZE });
  });
  afterEach(async () => {
    const open = closers;
    closers = [];
    await Promise.allSettled(open.map((close) => close()));
    await t.sql((c) => c.query(`DROP SCHEMA IF EXISTS ${t.schema} CASCADE`));
  });
  afterAll(async () => {
    await t.service?.stop();
  });
  return t;
}

/**
 * A case that starts child processes (`runScript`, `runTogether`): skipped under Stryker
 * (`npm run test:stryker`), whose sandbox has no `dist/` for the children to load.
 */
export const itWithChildren = it.skipIf(process.env.FATE_STRYKER_SLICE !== undefined);

/** Runs an ES module script with node in the package directory; resolves to its stdout. */
export async function runScript(script: string, env: Record<string, string>): Promise<string> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: PACKAGE_DIR,
    env: { ...process.env, ...env },
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  return stdout;
}

/**
 * Runs `count` copies of `script` so that its body starts in all of them at the same
 * moment: each loads its modules (`imports`), says so, and waits for a go file the test
 * writes once all are ready (process start-up takes seconds on a busy machine, so a start
 * time agreed in advance would not line them up).
 */
export async function runTogether(
  count: number,
  imports: string,
  body: string,
  env: Record<string, string>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fate-together-'));
  const go = join(dir, 'go');
  const script = `${imports}
    import { existsSync } from 'node:fs';
    console.log('ready');
    while (!existsSync(process.env.FATE_GO)) await new Promise((r) => setTimeout(r, 2));
    ${body}`;
  try {
    const children = Array.from({ length: count }, () =>
      spawn(process.execPath, ['--input-type=module', '-e', script], {
        cwd: PACKAGE_DIR,
        env: { ...process.env, ...env, FATE_GO: go },
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    const exits = children.map((c) => once(c, 'exit') as Promise<[number | null]>);
    await Promise.all(
      children.map(async (child) => {
        for await (const line of createInterface({ input: child.stdout })) {
          if (line === 'ready') return;
        }
        throw new Error('a child exited before it was ready');
      }),
    );
    writeFileSync(go, '');
    const codes = (await Promise.all(exits)).map(([code]) => code);
    if (codes.some((code) => code !== 0)) throw new Error(`children exited with ${codes}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
