import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '@fate/core';
import {
  type PostgresTestService,
  type RedisTestService,
  startPostgres,
  startRedis,
  startZooKeeper,
  type ZooKeeperTestService,
} from '@fate/test-services';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { newSchema, storeUrl, withClient } from '../../store-postgres/test/postgres-fixture.js';
import { rawClient } from '../../store-zk/test/zk-fixture.js';
import { fate } from './cli-harness.js';

// Admin tools open existing stores only: a URL with a typo is "no such store", exit 1, and
// nothing is created — on every backend. Engines (openStore's default) still create.

const step = { type: 's', state: null };

/** `fate summary`, `fate list` and `fate ui` on `url`: each exits 1 saying "no such store". */
async function refusedEverywhere(url: string): Promise<void> {
  for (const args of [['summary'], ['list', '--status', 'FAILED'], ['ui', '--port', '0']]) {
    const run = await fate([...args, '--store', url]);
    expect(run.code, `fate ${args.join(' ')}`).toBe(1);
    expect(run.stderr).toContain('no such store');
    expect(run.stderr).toContain('[FATE_STORE_CONFIG]');
  }
}

describe('admin tools never create a store', () => {
  let redis: RedisTestService | undefined;
  let postgres: PostgresTestService | undefined;
  let zk: ZooKeeperTestService | undefined;
  afterAll(async () => {
    await Promise.allSettled([redis?.stop(), postgres?.stop(), zk?.stop()]);
  });

  it('SQLite: no directory, no file, and no schema in an empty file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fate-no-store-'));
    try {
      await refusedEverywhere(`sqlite:${join(dir, 'typo', 'x.db')}`);
      expect(existsSync(join(dir, 'typo'))).toBe(false);
      const empty = join(dir, 'empty.db');
      writeFileSync(empty, '');
      await refusedEverywhere(`sqlite:${empty}`);
      expect(existsSync(`${empty}-wal`)).toBe(false);
      // an engine's open creates it; then the tools read it
      await (await openStore(`sqlite:${join(dir, 'real.db')}`)).close();
      expect((await fate(['summary', '--store', `sqlite:${join(dir, 'real.db')}`])).code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Redis: nothing is written under a prefix that holds no store', async () => {
    redis = await startRedis();
    const prefix = `typo-${Date.now()}`;
    await refusedEverywhere(`${redis.url}?prefix=${prefix}`);
    const raw = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await raw.connect();
      expect(await raw.keys(`*${prefix}*`)).toEqual([]);
    } finally {
      raw.disconnect();
    }
    const real = `${redis.url}?prefix=real-${Date.now()}`;
    const engine = await openStore(real);
    await engine.seed({ step, opName: 'op' });
    await engine.close();
    expect((await fate(['summary', '--store', real])).stdout).toContain('1 transaction');
  });

  it('PostgreSQL: the schema of a URL with a typo is not created', async () => {
    postgres = await startPostgres();
    const schema = newSchema();
    await refusedEverywhere(storeUrl(postgres.url, { schema }));
    const found = await withClient(postgres.url, (c) =>
      c.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]),
    );
    expect(found.rowCount).toBe(0);
  });

  it('ZooKeeper: the chroot of a URL with a typo is not created', async () => {
    zk = await startZooKeeper();
    const chroot = `/typo-${Date.now()}`;
    await refusedEverywhere(`${zk.url}${chroot}`);
    const raw = await rawClient(zk.url);
    try {
      expect(await raw.pathExists(chroot, false)).toBe(false);
    } finally {
      await raw.close();
    }
  });
});
