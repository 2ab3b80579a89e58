import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalServer } from './local-server.js';
import {
  answers,
  clusterOwner,
  initCluster,
  postgresArgs,
  postgresBinDir,
  runSql,
} from './postgres-process.js';
import { tlsCluster } from './postgres-tls.js';
import { freePort, hasBinary, hasDockerEngine, type TestService, waitFor } from './support.js';
import type { TestCertificates } from './tls-certs.js';

/** A PostgreSQL for tests: `url` is a database the tests may create schemas in. */
export interface PostgresTestService extends TestService {
  /**
   * Stops the server (a fast shutdown: sessions are cut) and starts it again on the same
   * port and data; resolves once it answers. Only a server the tests started can.
   */
  restart(): Promise<void>;
  /** With `tls`: the certificates made for the server (its CA, and a CA that signed nothing). */
  readonly certs?: TestCertificates;
}

/** The machine's own server, as Debian's `postgresql` package runs it (trust on loopback). */
const LOCAL_SERVER = 'postgres://postgres@127.0.0.1:5432/postgres';

const NOT_FOUND =
  'PostgreSQL tests need a PostgreSQL server and none could be started: install one with ' +
  '`apt-get install -y postgresql` (the tests use its server on 127.0.0.1:5432, or start a ' +
  'private cluster from its initdb), or set FATE_PG_URL=postgres://user@host:port/db to a ' +
  'database the tests may write to, or run a Docker engine.';

/**
 * A PostgreSQL for one test file. `FATE_PG_URL` when set (used as is, never dropped);
 * else a fresh database on the machine's server (127.0.0.1:5432, dropped by `stop`); else
 * a private cluster (`initdb`, `postgres`) on a free port in a temp dir; else `postgres:15`
 * in Docker. With `own`, only the last two: a server the test may restart. Throws one
 * clear Error when nothing is possible.
 */
export async function startPostgres(
  options: { own?: boolean; tls?: boolean } = {},
): Promise<PostgresTestService> {
  if (options.tls) return startTlsCluster();
  const external = process.env.FATE_PG_URL;
  if (!options.own) {
    if (external) {
      return { url: external, stop: async () => undefined, restart: cannotRestart(external) };
    }
    if (await answers(LOCAL_SERVER)) return privateDatabase(LOCAL_SERVER);
  }
  const bin = postgresBinDir();
  if (bin) return startCluster(bin);
  if (hasDockerEngine()) return startDockerPostgres();
  throw new Error(NOT_FOUND);
}

function cannotRestart(url: string): () => Promise<void> {
  return async () => {
    throw new Error(`cannot restart the PostgreSQL at ${url}; ask startPostgres({ own: true })`);
  };
}

async function privateDatabase(server: string): Promise<PostgresTestService> {
  const name = `fate_test_${randomBytes(5).toString('hex')}`;
  await runSql(server, `CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  let stopped = false;
  return {
    url: url.href,
    restart: cannotRestart(server),
    async stop() {
      if (stopped) return;
      stopped = true;
      // FORCE: connections a failed test left open must not keep the database alive.
      await runSql(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/**
 * A private cluster with `ssl=on` and a certificate made now (`tlsCluster`): `url` is
 * the superuser's, over TLS with `sslmode=verify-full` and the CA as `sslrootcert`; every
 * other role must come over TLS with a password (scram-sha-256).
 */
async function startTlsCluster(): Promise<PostgresTestService> {
  const bin = postgresBinDir();
  if (!bin || !hasBinary('openssl')) {
    throw new Error(
      'the PostgreSQL TLS tests need a private cluster: apt-get install -y postgresql openssl',
    );
  }
  return startCluster(bin, true);
}

async function startCluster(bin: string, tls = false): Promise<PostgresTestService> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'fate-pg-'));
  const owner = clusterOwner();
  let data: string;
  let ssl: { args: string[]; params: string; certs: TestCertificates } | undefined;
  try {
    data = initCluster(bin, dir, owner);
    if (tls) ssl = tlsCluster(dir, data, owner);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres${ssl?.params ?? ''}`;
  const server = await startLocalServer({
    name: `PostgreSQL on port ${port}`,
    command: join(bin, 'postgres'),
    args: [...postgresArgs(data, dir, port), ...(ssl?.args ?? [])],
    dir,
    ready: () => answers(url),
    startTimeoutMs: 30_000,
    termGraceMs: 10_000,
    // SIGTERM would wait for every client to disconnect; SIGINT cuts them (fast shutdown).
    stopSignal: 'SIGINT',
    ...(owner ?? {}),
  });
  return {
    url,
    ...(ssl ? { certs: ssl.certs } : {}),
    async restart() {
      if (server.stopped) throw new Error('this PostgreSQL was stopped');
      await server.halt();
      await server.launch();
    },
    stop: () => server.stop(),
  };
}

async function startDockerPostgres(): Promise<PostgresTestService> {
  const { GenericContainer, Wait } = await import('testcontainers');
  // A fixed host port, so a restarted container answers at the same URL.
  const port = await freePort();
  const container = await new GenericContainer('postgres:15')
    .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
    .withExposedPorts({ container: 5432, host: port })
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  const url = `postgres://postgres@${container.getHost()}:${port}/postgres`;
  let stopped = false;
  return {
    url,
    async restart() {
      if (stopped) throw new Error('this PostgreSQL was stopped');
      await container.restart();
      await waitFor(`PostgreSQL container on port ${port}`, () => answers(url));
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await container.stop();
    },
  };
}
