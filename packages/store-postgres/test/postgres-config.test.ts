import { openStore } from '@fate/core';
import { createPostgresStore, createStoreBackend, parsePostgresUrl } from '@fate/store-postgres';
import { freePort } from '@fate/test-services';
import { describe, expect, it } from 'vitest';
import { storeUrl } from './postgres-fixture.js';
import { usePostgres } from './postgres-harness.js';

const t = usePostgres();

describe('postgres backend: URLs and configuration', () => {
  it('parses postgres: and postgresql: URLs, keeping node-postgres parameters', () => {
    expect(parsePostgresUrl('postgres://app@db:5432/app')).toEqual({
      connectionString: 'postgres://app@db:5432/app',
    });
    expect(
      parsePostgresUrl('postgresql://u:p@db/app?schema=jobs&poolSize=16&sslmode=require'),
    ).toEqual({
      connectionString: 'postgresql://u:p@db/app?sslmode=require',
      schema: 'jobs',
      poolSize: 16,
    });
    expect(parsePostgresUrl('postgres://db/app?queryTimeoutMs=500')).toMatchObject({
      queryTimeoutMs: 500,
    });
    for (const bad of [
      'postgres://',
      'postgres:///app',
      'postgres://db/app?schema=Has-Dash',
      'postgres://db/app?schema=a&schema=b',
      'postgres://db/app?poolSize=0',
      'postgres://db/app?poolSize=lots',
      'redis://db',
      'postgres db',
    ]) {
      expect(() => createStoreBackend(bad), bad).toThrow(
        expect.objectContaining({ code: 'FATE_BAD_URL' }),
      );
    }
  });

  it('keeps the password out of error messages', () => {
    expect(() => createStoreBackend('postgres://u:secret@db/app?poolSize=x')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('secret') }),
    );
  });

  it('refuses a bad config with FATE_INVALID_ARGUMENT', async () => {
    for (const config of [
      { connectionString: 'mysql://db/app' },
      { connectionString: 'postgres://db/app', schema: 'x y' },
      { connectionString: 'postgres://db/app', schema: 'a'.repeat(49) },
      { connectionString: 'postgres://db/app', poolSize: 0 },
      { connectionString: 'postgres://db/app', queryTimeoutMs: 1.5 },
    ]) {
      await expect(createPostgresStore(config)).rejects.toMatchObject({
        code: 'FATE_INVALID_ARGUMENT',
      });
    }
  });
});

describe('postgres backend: opening', () => {
  it('opens through openStore with a postgres: or postgresql: URL', async () => {
    for (const scheme of ['postgres', 'postgresql']) {
      const url = t.url.replace(/^postgres(ql)?:/, `${scheme}:`);
      const store = await openStore(url);
      try {
        const { id } = await store.seed({ step: { type: 's', state: {} }, opName: 'op' });
        expect((await store.read(id)).status).toBe('SUBMITTED');
      } finally {
        await store.close();
      }
    }
  });

  it('reports a database or role that does not exist as FATE_STORE_CONFIG, a refused port as FATE_STORE_UNAVAILABLE', async () => {
    const server = new URL(t.service.url);
    const noDatabase = new URL(server);
    noDatabase.pathname = '/fate_no_such_database';
    const noRole = new URL(server);
    noRole.username = 'fate_no_such_role';
    for (const [url, code, cause] of [
      [noDatabase.href, 'FATE_STORE_CONFIG', '3D000'],
      [noRole.href, 'FATE_STORE_CONFIG', '28000'],
      [
        `postgres://postgres@127.0.0.1:${await freePort()}/x`,
        'FATE_STORE_UNAVAILABLE',
        'ECONNREFUSED',
      ],
    ] as const) {
      await expect(openStore(storeUrl(url, { schema: t.schema })), url).rejects.toMatchObject({
        code,
        cause: expect.objectContaining({ code: cause }),
      });
    }
  });
});
