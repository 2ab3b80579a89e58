import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createRedisStore } from '@fate/store-redis';
import { beforeAll, describe, expect, it } from 'vitest';
import { newPrefix, useRedis } from './redis-context.js';

// Opening a store on a Redis that cannot serve it fails at once, with the server's own
// reason and a stable code, and leaves nothing behind that keeps the process alive.
const redis = useRedis();
const PASSWORD = 'fate-secret';
const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('./children/open-store.mjs', import.meta.url));

beforeAll(async () => {
  // existing connections (the admin's) stay authenticated
  await redis.admin.config('SET', 'requirepass', PASSWORD);
});

/** The test server's URL with a password, a database and a fresh prefix; or as a Cluster URL. */
function url(
  options: { password?: string; db?: number; port?: number; cluster?: boolean } = {},
): string {
  const u = new URL(redis.url(newPrefix(), options.db));
  if (options.password !== undefined) u.password = options.password;
  if (options.port !== undefined) u.port = String(options.port);
  return options.cluster ? u.href.replace(/^redis:/, 'redis+cluster:') : u.href;
}

async function openError(target: string): Promise<{ code?: string; message: string }> {
  try {
    await (await createRedisStore(target)).close();
  } catch (err) {
    return err as { code?: string; message: string };
  }
  throw new Error(`opening ${target} succeeded`);
}

describe('opening a Redis store', () => {
  it('refuses a database the server does not have, and writes nothing anywhere', async () => {
    const target = url({ password: PASSWORD, db: 99 });
    const err = await openError(target);
    expect(err.code).toBe('FATE_STORE_CONFIG');
    expect(err.message).toMatch(/database 99/);
    expect(err.message).toMatch(/DB index is out of range/);
    expect(await redis.admin.dbsize()).toBe(0);
  });

  it.each([
    ['a wrong password', { password: 'wrong' }, 'FATE_STORE_CONFIG', /WRONGPASS/],
    ['no password', {}, 'FATE_STORE_CONFIG', /NOAUTH/],
    [
      'a port nothing listens on',
      { password: PASSWORD, port: 1 },
      'FATE_STORE_UNAVAILABLE',
      /ECONNREFUSED/,
    ],
    [
      'a Cluster port nothing listens on',
      { cluster: true, port: 1 },
      'FATE_STORE_UNAVAILABLE',
      /ECONNREFUSED/,
    ],
    [
      'a Cluster URL with a wrong password',
      { cluster: true, password: 'wrong' },
      'FATE_STORE_CONFIG',
      /WRONGPASS/,
    ],
    [
      'a Cluster URL on a Redis that is no Cluster',
      { cluster: true, password: PASSWORD },
      'FATE_STORE_CONFIG',
      /cluster support disabled/,
    ],
  ])(
    'fails on %s with the reason the server or the network gave',
    async (_, options, code, reason) => {
      const err = await openError(url(options));
      expect(err.code).toBe(code);
      expect(err.message).toMatch(reason);
      expect(err.message).not.toContain(PASSWORD);
    },
  );

  it.each([
    ['after a refused connection', { password: PASSWORD, port: 1 }, false],
    ['after a wrong password', { password: 'wrong' }, false],
    ['after a missing database', { password: PASSWORD, db: 99 }, false],
    ['after a refused Cluster', { cluster: true, port: 1 }, false],
    ['after a clean close', { password: PASSWORD }, true],
  ])('lets the process exit at once %s', async (_, options, opened) => {
    const { stdout } = await run(process.execPath, [CHILD, url(options)], { timeout: 20_000 });
    const outcome = JSON.parse(stdout.trim()) as { opened: boolean; lingerMs: number };
    expect(outcome.opened).toBe(opened);
    // nothing (a reconnect timer, a socket being torn down) keeps the event loop alive
    expect(outcome.lingerMs).toBeLessThan(500);
  });
});
