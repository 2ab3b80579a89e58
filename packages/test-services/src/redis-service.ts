import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalServer } from './local-server.js';
import { ping, redisServerArgs } from './redis-process.js';
import { freePort, hasBinary, hasDockerEngine, type TestService, waitFor } from './support.js';
import { loadTestcontainers } from './testcontainers.js';

/** A Redis for tests that can also be restarted with its data (AOF), for recovery tests. */
export interface RedisTestService extends TestService {
  /** Stops Redis and starts it again on the same port and data; resolves once it answers. */
  restart(): Promise<void>;
}

const NOT_FOUND =
  'Redis tests need a Redis server and none could be started: install one with ' +
  '`apt-get install -y redis-server` (the tests start their own redis-server on a free port), ' +
  'or set FATE_REDIS_URL=redis://host:port to a Redis the tests may write to, or run a Docker engine.';

/**
 * Starts a Redis for tests: `FATE_REDIS_URL` when set (never stopped, cannot restart);
 * else a private `redis-server` on a free port in a fresh temp dir; else `redis:7` in
 * Docker (testcontainers). Throws one clear Error when none of these is possible.
 */
export async function startRedis(): Promise<RedisTestService> {
  const external = process.env.FATE_REDIS_URL;
  if (external) {
    return {
      url: external,
      stop: async () => undefined,
      restart: async () => {
        throw new Error(
          'cannot restart the Redis of FATE_REDIS_URL; unset it to let tests start their own',
        );
      },
    };
  }
  if (hasBinary('redis-server')) return startLocalRedis();
  if (hasDockerEngine()) return startDockerRedis();
  throw new Error(NOT_FOUND);
}

async function startLocalRedis(): Promise<RedisTestService> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'fate-redis-'));
  const args = [...redisServerArgs(port, dir), '--appendonly', 'yes'];
  // SIGTERM is Redis's clean shutdown: it writes the AOF out, so restart keeps the data.
  const server = await startLocalServer({
    name: `redis-server on port ${port}`,
    command: 'redis-server',
    args,
    dir,
    ready: () => ping('127.0.0.1', port),
    startTimeoutMs: 20_000,
    termGraceMs: 10_000,
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    async restart() {
      if (server.stopped) throw new Error('this Redis was stopped');
      await server.halt();
      await server.launch();
    },
    stop: () => server.stop(),
  };
}

async function startDockerRedis(): Promise<RedisTestService> {
  const { GenericContainer, Wait } = await loadTestcontainers('Redis', 'FATE_REDIS_URL');
  // A fixed host port, so a restarted container answers at the same URL.
  const port = await freePort();
  const container = await new GenericContainer('redis:7')
    .withCommand(['redis-server', '--appendonly', 'yes', '--save', ''])
    .withExposedPorts({ container: 6379, host: port })
    .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
    .start();
  const host = container.getHost();
  let stopped = false;
  return {
    url: `redis://${host}:${port}`,
    async restart() {
      if (stopped) throw new Error('this Redis was stopped');
      await container.restart();
      await waitFor(`Redis container on port ${port}`, () => ping(host, port));
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await container.stop();
    },
  };
}
