import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { hasBinary } from './support.js';

// Running a private PostgreSQL cluster from the distribution's binaries (Debian keeps them
// in /usr/lib/postgresql/<version>/bin, off PATH), and probing any server.

/** The directory of `initdb` and `postgres`, or undefined when there are none. */
export function postgresBinDir(): string | undefined {
  if (hasBinary('initdb') && hasBinary('postgres')) {
    return join(execFileSync('sh', ['-c', 'command -v initdb']).toString().trim(), '..');
  }
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/** Who runs the cluster: PostgreSQL refuses root, so as root the `postgres` user. */
export function clusterOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Makes a cluster in `dir`/data whose superuser is `postgres` with trust authentication
 * (loopback only), owned by `owner` when given.
 */
export function initCluster(bin: string, dir: string, owner?: { uid: number; gid: number }) {
  const data = join(dir, 'data');
  mkdirSync(data, { mode: 0o700 });
  if (owner) {
    chownSync(dir, owner.uid, owner.gid);
    chownSync(data, owner.uid, owner.gid);
  }
  const args = ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '-N'];
  execFileSync(join(bin, 'initdb'), args, { stdio: 'ignore', ...(owner ?? {}) });
  return data;
}

/**
 * The server's flags: loopback on `port`, its socket in `dir`, and no fsync (a test cluster
 * needs no durability against an OS crash; a clean restart or a killed server keeps its
 * data all the same).
 */
export function postgresArgs(data: string, dir: string, port: number): string[] {
  return [
    ...['-D', data, '-p', String(port), '-k', dir],
    ...['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200'],
  ];
}

/** True when a PostgreSQL server answers a query at `url`. */
export async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Runs `sql` once on the server at `url`. */
export async function runSql(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end().catch(() => undefined);
  }
}
