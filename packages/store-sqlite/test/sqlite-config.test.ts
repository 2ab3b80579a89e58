import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore, Status } from '@fate/core';
import { createSqliteStore, createStoreBackend, parseSqliteUrl } from '@fate/store-sqlite';
import { describe, expect, it } from 'vitest';
import { runScript, step, useSqlite, withRaw } from './sqlite-harness.js';

const t = useSqlite();

/** What opening `path` fails with, as seen by a client (code, message, cause's code). */
async function openFailure(path: string, create?: boolean) {
  const err = await createSqliteStore({ path, ...(create === undefined ? {} : { create }) }).then(
    () => undefined,
    (e: Error & { code?: string; cause?: { code?: string } }) => e,
  );
  return { code: err?.code, message: err?.message ?? '', cause: err?.cause?.code };
}

describe('sqlite backend: URLs and configuration', () => {
  it('parses sqlite: URLs with an optional mode, and refuses others with FATE_BAD_URL', () => {
    expect(parseSqliteUrl('sqlite:./fate.db')).toEqual({ path: './fate.db' });
    expect(parseSqliteUrl('sqlite:relative/x.db')).toEqual({ path: 'relative/x.db' });
    expect(parseSqliteUrl('sqlite:/abs/path.db')).toEqual({ path: '/abs/path.db' });
    expect(parseSqliteUrl('SQLITE:///abs/path.db')).toEqual({ path: '/abs/path.db' });
    expect(parseSqliteUrl('sqlite:./x.db?mode=open')).toEqual({ path: './x.db', create: false });
    expect(parseSqliteUrl('sqlite:///a/x.db?mode=create')).toEqual({
      path: '/a/x.db',
      create: true,
    });
    for (const bad of [
      'sqlite:',
      'sqlite:?mode=open',
      'sqlite://host/x.db',
      'sqlite::memory:',
      'sqlite:x.db?mode=ro',
      'sqlite:x.db?mode=open&cache=shared',
      'sqlite:x.db?create=false',
      'sqlite:x.db?mode=constructor',
      'redis://x',
      'fate.db',
      '',
    ]) {
      expect(() => createStoreBackend(bad), bad).toThrow(
        expect.objectContaining({ code: 'FATE_BAD_URL' }),
      );
    }
  });

  it('refuses a bad config with FATE_INVALID_ARGUMENT', async () => {
    for (const config of [
      { path: '' },
      { path: ':memory:' },
      { path: 'x.db', busyTimeoutMs: -1 },
      { path: 'x.db', create: 'no' as unknown as boolean },
    ]) {
      await expect(createSqliteStore(config)).rejects.toMatchObject({
        code: 'FATE_INVALID_ARGUMENT',
      });
    }
  });

  it('opens through openStore and creates missing parent directories', async () => {
    const nested = join(t.fixture.dir, 'a', 'b', 'nested.db');
    const store = await openStore(`sqlite:${nested}`);
    try {
      const { id } = await store.seed({ step, opName: 'op' });
      expect((await store.read(id)).status).toBe(Status.SUBMITTED);
    } finally {
      await store.close();
    }
  });

  it('opens an existing store with mode=open, and creates nothing where there is none', async () => {
    const missing = join(t.fixture.dir, 'no-such-dir', 'x.db');
    for (const url of [`sqlite:${missing}?mode=open`, `sqlite:${t.fixture.file}?mode=open`]) {
      const err = await openStore(url).then(
        () => undefined,
        (e: Error & { code?: string }) => e,
      );
      expect(err, url).toMatchObject({ code: 'FATE_STORE_CONFIG' });
      expect(err?.message).toContain(url.slice('sqlite:'.length, url.indexOf('?')));
    }
    expect(existsSync(join(t.fixture.dir, 'no-such-dir'))).toBe(false);
    expect(existsSync(t.fixture.file)).toBe(false);
    const { id } = await (await t.store()).seed({ step, opName: 'op' });
    const store = await openStore(`sqlite:${t.fixture.file}?mode=open`);
    try {
      expect((await store.read(id)).status).toBe(Status.SUBMITTED);
    } finally {
      await store.close();
    }
  });
});

describe('sqlite backend: a path that cannot work is FATE_STORE_CONFIG, naming it', () => {
  it('under a regular file (ENOTDIR), on a directory, on a file that is not a database', async () => {
    const plain = join(t.fixture.dir, 'plain-file');
    writeFileSync(plain, 'x');
    const garbage = join(t.fixture.dir, 'garbage.db');
    writeFileSync(garbage, 'this is not an SQLite database, not even close. '.repeat(100));
    const dir = join(t.fixture.dir, 'a-directory.db');
    mkdirSync(dir);
    for (const [path, cause] of [
      [join(plain, 'x.db'), 'ENOTDIR'],
      [join(plain, 'sub', 'x.db'), 'ENOTDIR'],
      [dir, undefined],
      [garbage, 'SQLITE_NOTADB'],
    ] as const) {
      expect(await openFailure(path), path).toMatchObject({ code: 'FATE_STORE_CONFIG', cause });
      expect((await openFailure(path)).message).toContain(path);
    }
  });

  it('under a dangling symbolic link (EEXIST)', async () => {
    const link = join(t.fixture.dir, 'dangling');
    symlinkSync(join(t.fixture.dir, 'nowhere'), link);
    const path = join(link, 'x.db');
    expect(await openFailure(path)).toMatchObject({ code: 'FATE_STORE_CONFIG', cause: 'EEXIST' });
  });

  it('where the process may not go (EACCES)', async () => {
    const path = join(t.fixture.dir, 'locked', 'x.db');
    mkdirSync(join(t.fixture.dir, 'locked'), { mode: 0o000 });
    // root passes every permission check: ask as nobody instead (the temp dir is 0700).
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const out = await runScript(
      `import { createSqliteStore } from '@fate/store-sqlite';
       const err = await createSqliteStore({ path: process.env.FATE_FILE }).catch((e) => e);
       console.log(JSON.stringify({ code: err.code, cause: err.cause?.code, message: err.message }));`,
      { FATE_FILE: path },
      asUser,
    );
    const got = JSON.parse(out) as { code: string; cause: string; message: string };
    expect(got).toMatchObject({ code: 'FATE_STORE_CONFIG', cause: 'EACCES' });
    expect(got.message).toContain(path);
  });

  it('where the directory cannot be made (/proc/nope): fails within a second instead of spinning', async () => {
    // In a child: the old recursive mkdir spun forever with the event loop blocked, so only
    // the child's timeout (SIGKILL) could end it.
    const out = await runScript(
      `import { openStore } from '@fate/core';
       await import('@fate/store-sqlite');
       const started = performance.now();
       const err = await openStore('sqlite:/proc/nope/x.db').catch((e) => e);
       console.log(JSON.stringify({ code: err.code, ms: performance.now() - started, message: err.message }));`,
      {},
      { timeout: 20_000 },
    );
    const got = JSON.parse(out) as { code: string; ms: number; message: string };
    console.log(`sqlite:/proc/nope/x.db failed in ${got.ms.toFixed(1)} ms: ${got.message}`);
    expect(got.code).toBe('FATE_STORE_CONFIG');
    expect(got.message).toContain('/proc/nope');
    expect(got.ms).toBeLessThan(1_000);
  });

  it('a file whose schema is newer than this package', async () => {
    await (await t.store()).close();
    withRaw(t.fixture.file, (db) =>
      db.prepare(`UPDATE fate_meta SET value = '99' WHERE key = 'schema_version'`).run(),
    );
    expect(await openFailure(t.fixture.file)).toMatchObject({ code: 'FATE_STORE_CONFIG' });
  });
});
