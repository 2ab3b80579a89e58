import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startLocalServer } from './local-server.js';
import { freePort, hasDockerEngine, type TestService, waitFor } from './support.js';
import {
  hasLocalZooKeeper,
  serving,
  TICK_MS,
  zooCfgLines,
  zooKeeperJavaArgs,
} from './zookeeper-process.js';
import { loadTestcontainers } from './testcontainers.js';

/** A ZooKeeper for tests; one the tests started can also be frozen for a while. */
export interface ZooKeeperTestService extends TestService {
  /**
   * Freezes the server for `downMs` (SIGSTOP/SIGCONT; a container is paused), as a hung or
   * partitioned server: clients see their requests time out and their connection lost, and
   * with `downMs` past their session timeout the server expires their sessions as soon as
   * it runs again. Throws for a ZooKeeper the tests did not start.
   */
  pause(downMs: number): Promise<void>;
}

const run = promisify(execFile);

const NOT_FOUND =
  'ZooKeeper tests need a ZooKeeper server and none could be started: install one with ' +
  '`apt-get install -y zookeeper default-jre-headless` (the tests start their own server on a ' +
  'free port from /usr/share/java/zookeeper.jar), or set FATE_ZK_CONNECT=host:port[,host:port] ' +
  'to a ZooKeeper the tests may write to, or run a Docker engine.';

/**
 * Starts a ZooKeeper for tests and returns its `zk://host:port` URL (no chroot: each test
 * adds its own). `FATE_ZK_CONNECT` when set (never stopped); else a private server from
 * the Debian `zookeeper` package on a free port with a fresh data dir; else `zookeeper:3.8`
 * in Docker (testcontainers). Throws one clear Error when none of these is possible.
 */
export async function startZooKeeper(): Promise<ZooKeeperTestService> {
  const external = process.env.FATE_ZK_CONNECT;
  if (external) {
    return {
      url: `zk://${external}`,
      stop: async () => undefined,
      pause: async () => {
        throw new Error(
          'cannot pause the ZooKeeper of FATE_ZK_CONNECT; unset it to let tests start their own',
        );
      },
    };
  }
  if (hasLocalZooKeeper()) return startLocalZooKeeper();
  if (hasDockerEngine()) return startDockerZooKeeper();
  throw new Error(NOT_FOUND);
}

async function startLocalZooKeeper(): Promise<ZooKeeperTestService> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'fate-zk-'));
  const dataDir = join(dir, 'data');
  const cfg = join(dir, 'zoo.cfg');
  writeFileSync(cfg, [...zooCfgLines(port, dataDir), ''].join('\n'));
  const server = await startLocalServer({
    name: `ZooKeeper on port ${port}`,
    command: 'java',
    args: zooKeeperJavaArgs('ZooKeeperServerMain', cfg),
    dir,
    ready: () => serving('127.0.0.1', port),
    startTimeoutMs: 30_000,
    termGraceMs: 5_000,
  });
  return {
    url: `zk://127.0.0.1:${port}`,
    async pause(downMs) {
      const proc = server.process;
      if (server.stopped || !proc) throw new Error('this ZooKeeper was stopped');
      proc.kill('SIGSTOP');
      try {
        await new Promise((r) => setTimeout(r, downMs));
      } finally {
        proc.kill('SIGCONT');
      }
      await waitFor(`ZooKeeper on port ${port} after a pause`, () => serving('127.0.0.1', port));
    },
    stop: () => server.stop(),
  };
}

async function startDockerZooKeeper(): Promise<ZooKeeperTestService> {
  const { GenericContainer } = await loadTestcontainers('ZooKeeper', 'FATE_ZK_CONNECT');
  const port = await freePort();
  const container = await new GenericContainer('zookeeper:3.8')
    .withEnvironment({
      ZOO_TICK_TIME: String(TICK_MS),
      ZOO_CFG_EXTRA: `minSessionTimeout=${2 * TICK_MS} maxSessionTimeout=60000 forceSync=no`,
      ZOO_4LW_COMMANDS_WHITELIST: 'srvr,ruok,stat,cons',
      ZOO_ADMINSERVER_ENABLED: 'false',
    })
    .withExposedPorts({ container: 2181, host: port })
    .start();
  const host = container.getHost();
  let stopped = false;
  const ready = () =>
    waitFor(`ZooKeeper container on port ${port}`, () => serving(host, port), 30_000);
  try {
    await ready();
  } catch (err) {
    await container.stop();
    throw err;
  }
  return {
    url: `zk://${host}:${port}`,
    async pause(downMs) {
      if (stopped) throw new Error('this ZooKeeper was stopped');
      await run('docker', ['pause', container.getId()]);
      try {
        await new Promise((r) => setTimeout(r, downMs));
      } finally {
        await run('docker', ['unpause', container.getId()]);
      }
      await ready();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await container.stop();
    },
  };
}
