import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { withTimeout } from '../measurements/stats.js';

// What a store's server says about its own work: the CPU and the commands of a Redis
// server, the requests a ZooKeeper server received. Read before and after a run.

async function redisInfo(url: string, section: string): Promise<string> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
  try {
    await redis.connect();
    return await redis.info(section);
  } finally {
    redis.disconnect();
  }
}

function field(text: string, name: string, source: string): number {
  const value = Number(new RegExp(`^${name}[:=]\\s*([\\d.]+)`, 'm').exec(text)?.[1]);
  if (!Number.isFinite(value)) throw new Error(`no ${name} in ${source}`);
  return value;
}

/** CPU seconds (`used_cpu_sys` + `used_cpu_user` of `INFO cpu`) the Redis server has used. */
export async function redisCpuSeconds(url: string): Promise<number> {
  const info = await redisInfo(url, 'cpu');
  return field(info, 'used_cpu_sys', 'INFO cpu') + field(info, 'used_cpu_user', 'INFO cpu');
}

/**
 * Commands the Redis server has run (`total_commands_processed`): those called inside Lua
 * scripts count too, so this is the server's work, not the network round trips.
 */
export async function redisCommands(url: string): Promise<number> {
  return field(await redisInfo(url, 'stats'), 'total_commands_processed', 'INFO stats');
}

/**
 * Requests the ZooKeeper server at `host:port` has received (`Received` of the `stat`
 * four-letter command: every request of every session, pings included).
 */
export async function zkRequestsReceived(hostPort: string): Promise<number> {
  const [host = '127.0.0.1', port = '2181'] = hostPort.split(':');
  const socket = connect({ host, port: Number(port) });
  const reply = new Promise<string>((resolve, reject) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write('stat'));
    socket.on('data', (chunk) => {
      text += chunk;
    });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
  try {
    return field(await withTimeout(reply, 5_000, `the stat of ${hostPort}`), 'Received', 'stat');
  } finally {
    socket.destroy();
  }
}

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** utime + stime of the postgres process `pid` from /proc, seconds; 0 when it is not one. */
function postgresProcessCpu(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (!stat.includes('(postgres)')) return 0;
    // fields after the command (which may hold spaces): state is field 3, utime 14, stime 15
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds the PostgreSQL server processes serving the database of `url` have used
 * (`pg_stat_activity` of that database, this query's own backend left out; /proc of each,
 * so only for a server on this host). Shared server processes (WAL writer, checkpointer)
 * are not counted, nor a backend that came and went between two readings.
 */
export async function postgresCpuSeconds(url: string): Promise<number> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows.reduce((sum, row) => sum + postgresProcessCpu(row.pid), 0);
  } finally {
    await client.end().catch(() => undefined);
  }
}
