import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, hasBinary, hasDockerEngine, type TestService, waitFor } from './support.js';

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

/** True when Redis at host:port answers PING (raw RESP, so no client library is needed). */
function ping(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

async function startLocalRedis(): Promise<RedisTestService> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'fate-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir];
  args.push('--save', '', '--appendonly', 'yes', '--daemonize', 'no');
  let child: ChildProcess | undefined;
  let stopped = false;
  // If the test process dies without stop(), the server must not outlive it.
  const onExit = () => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  const launch = async () => {
    const proc = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4_000);
    };
    proc.stdout?.on('data', keep);
    proc.stderr?.on('data', keep);
    let exited = false;
    proc.once('exit', () => {
      exited = true;
    });
    const deadline = Date.now() + 20_000;
    while (!exited && Date.now() < deadline) {
      if (await ping('127.0.0.1', port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    proc.kill('SIGKILL');
    child = undefined;
    throw new Error(
      `redis-server on port ${port} did not start (${exited ? 'it exited' : 'no answer'}):\n${output}`,
    );
  };

  // SIGTERM is Redis's clean shutdown: it writes the AOF out, so restart keeps the data.
  const halt = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  try {
    await launch();
  } catch (err) {
    process.off('exit', onExit);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    async restart() {
      if (stopped) throw new Error('this Redis was stopped');
      await halt();
      await launch();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await halt();
      process.off('exit', onExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function startDockerRedis(): Promise<RedisTestService> {
  const { GenericContainer, Wait } = await import('testcontainers');
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
