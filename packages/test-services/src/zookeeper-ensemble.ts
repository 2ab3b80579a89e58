import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDelayProxy } from './delay-proxy.js';
import { type LocalServer, startLocalServer } from './local-server.js';
import { freePorts, type TestService, waitFor } from './support.js';
import {
  hasLocalZooKeeper,
  serving,
  TICK_MS,
  zooCfgLines,
  zooKeeperJavaArgs,
  zooKeeperMode,
} from './zookeeper-process.js';

/** A ZooKeeper ensemble on loopback whose servers a test can crash and bring back. */
export interface ZooKeeperEnsemble extends TestService {
  /** `zk://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3` (no chroot: each test adds its own). */
  readonly url: string;
  /** The client connect string, `127.0.0.1:p1,…`. */
  readonly connect: string;
  /** Each server's `myid` (1, 2, 3, …) and client port. */
  readonly servers: ReadonlyArray<{ readonly id: number; readonly clientPort: number }>;
  /** A server's mode (`leader`, `follower`), or undefined while it is down or not serving. */
  mode(id: number): Promise<string | undefined>;
  /** The `myid` of the server that leads now; waits (bounded) until one does. */
  leader(timeoutMs?: number): Promise<number>;
  /** SIGKILLs server `id`, as a crash; resolves once the process is gone. */
  kill(id: number): Promise<void>;
  /** Starts server `id` again with its data dir and myid; resolves once it serves. */
  restart(id: number): Promise<void>;
  /**
   * Freezes server `id` (SIGSTOP) as a hung server: its port still takes connections, which
   * nothing answers. Returns the function that lets it run on (SIGCONT).
   */
  freeze(id: number): () => void;
}

export interface EnsembleOptions {
  /**
   * Server `id` (never the first leader if it is not the highest id: a fresh ensemble
   * elects the highest) talks to the others' quorum ports through a proxy that holds every
   * packet `delayMs`: it applies each committed write that much after the leader
   * acknowledged it, so its clients read what others were told is gone or not there yet.
   */
  readonly laggingFollower?: { readonly id: number; readonly delayMs: number };
}

/** Enough for three JVMs to start and elect a leader on a busy two-core machine. */
const START_TIMEOUT_MS = 60_000;

const NOT_FOUND =
  'a ZooKeeper ensemble needs the Debian zookeeper package and java ' +
  '(`apt-get install -y zookeeper default-jre-headless`); it is not started in Docker';

/**
 * Starts `size` (default 3) ZooKeeper servers (`QuorumPeerMain`) on free loopback ports,
 * each with its own temp dir, `myid` and zoo.cfg, and resolves once every server serves
 * and one of them leads. Throws one clear Error when it cannot.
 *
 * @example
 * const zk = await startZooKeeperEnsemble();
 * const old = await zk.leader();
 * await zk.kill(old);
 * const next = await zk.leader(); // a new election
 * await zk.restart(old);          // rejoins as a follower
 */
export async function startZooKeeperEnsemble(
  size = 3,
  options: EnsembleOptions = {},
): Promise<ZooKeeperEnsemble> {
  if (!hasLocalZooKeeper()) throw new Error(NOT_FOUND);
  const ports = await freePorts(3 * size);
  const members = Array.from({ length: size }, (_, i) => ({
    id: i + 1,
    clientPort: ports[3 * i] as number,
    quorumPort: ports[3 * i + 1] as number,
    electionPort: ports[3 * i + 2] as number,
  }));
  const lag = options.laggingFollower;
  const proxies = lag
    ? await Promise.all(members.map((m) => startDelayProxy(m.quorumPort, lag.delayMs)))
    : [];
  // the lagging server reaches the others' quorum ports through the delaying proxies
  const serverLines = (id: number) =>
    members.map((m, i) => {
      const quorum = lag?.id === id && m.id !== id ? proxies[i]?.port : m.quorumPort;
      return `server.${m.id}=127.0.0.1:${quorum}:${m.electionPort}`;
    });
  const started = await Promise.allSettled(
    members.map((m) => {
      const dir = mkdtempSync(join(tmpdir(), `fate-zk${m.id}-`));
      const dataDir = join(dir, 'data');
      const cfg = join(dir, 'zoo.cfg');
      // a quorum peer reads which server it is from `myid` in its data dir
      mkdirSync(dataDir);
      writeFileSync(join(dataDir, 'myid'), `${m.id}\n`);
      const lines = [
        ...zooCfgLines(m.clientPort, dataDir),
        ...ensembleLines(),
        ...serverLines(m.id),
      ];
      writeFileSync(cfg, [...lines, ''].join('\n'));
      return startLocalServer({
        name: `ZooKeeper ${m.id} of ${size} on port ${m.clientPort}`,
        command: 'java',
        args: zooKeeperJavaArgs('quorum.QuorumPeerMain', cfg, ELECTION_PROPERTIES),
        dir,
        ready: () => serving('127.0.0.1', m.clientPort),
        startTimeoutMs: START_TIMEOUT_MS,
        termGraceMs: 5_000,
      });
    }),
  );
  const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  const stopAll = async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await Promise.all(proxies.map((p) => p.close()));
  };
  if (failed) {
    await stopAll();
    throw failed.reason;
  }
  const connect = members.map((m) => `127.0.0.1:${m.clientPort}`).join(',');
  const server = (id: number): LocalServer => {
    const s = servers[id - 1];
    if (!s || s.stopped) throw new Error(`no ensemble server ${id}`);
    return s;
  };
  const clientPort = (id: number): number => {
    const m = members[id - 1];
    if (!m) throw new Error(`no ensemble server ${id}`);
    return m.clientPort;
  };
  const ensemble: ZooKeeperEnsemble = {
    url: `zk://${connect}`,
    connect,
    servers: members.map((m) => ({ id: m.id, clientPort: m.clientPort })),
    mode: async (id) => zooKeeperMode('127.0.0.1', clientPort(id)),
    async leader(timeoutMs = 30_000) {
      let found: number | undefined;
      await waitFor(
        'a ZooKeeper ensemble leader',
        async () => {
          const modes = await Promise.all(members.map((m) => ensemble.mode(m.id)));
          found = members[modes.indexOf('leader')]?.id;
          return found !== undefined;
        },
        timeoutMs,
      );
      return found as number;
    },
    kill: async (id) => server(id).kill(),
    restart: async (id) => server(id).launch(),
    freeze(id) {
      const proc = server(id).process;
      if (!proc) throw new Error(`ensemble server ${id} is not running`);
      proc.kill('SIGSTOP');
      return () => proc.kill('SIGCONT');
    },
    stop: stopAll,
  };
  try {
    await ensemble.leader(START_TIMEOUT_MS);
  } catch (err) {
    await ensemble.stop();
    throw err;
  }
  return ensemble;
}

/**
 * A server looking for a leader sends its vote again after a wait that doubles each round it
 * hears too little, up to 60 s by default, so a few rounds missed on a loaded machine make
 * an election last tens of seconds; that is the likeliest cause of the 11 s and 20+ s
 * elections of two servers seen under CI load (their logs were gone). Capped at 1 s here.
 */
const ELECTION_PROPERTIES = ['-Dzookeeper.fastleader.maxNotificationInterval=1000'];

/** Quorum timing in ticks: generous enough for slow JVM starts, short for tests. */
function ensembleLines(): string[] {
  return [
    // followers connect and sync with a new leader within initLimit ticks
    `initLimit=${Math.ceil(10_000 / TICK_MS)}`,
    // a follower that does not answer within syncLimit ticks is dropped
    `syncLimit=${Math.ceil(5_000 / TICK_MS)}`,
  ];
}
