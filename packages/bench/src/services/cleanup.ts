import { createRequire } from 'node:module';

// Removing a benchmark namespace from a shared service. Needed when the service is one the
// user pointed us at (FATE_REDIS_URL / FATE_ZK_CONNECT / FATE_PG_URL); a private server is
// deleted whole.

/** Drops the PostgreSQL schema `schema` (unique per namespace) and everything in it. */
export async function dropPostgresSchema(serverUrl: string, schema: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: serverUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Deletes every Redis key whose name contains `prefix` (the prefix is unique per run). */
export async function dropRedisPrefix(serverUrl: string, prefix: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(serverUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 1_000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

type Callback<T extends unknown[]> = (rc: number, error: string, ...result: T) => void;

/** The slice of the `zookeeper` binding (C client) used here. */
interface NativeZk {
  init(config: object): void;
  close(): void;
  once(event: 'connect' | 'close', listener: () => void): void;
  a_get_children(path: string, watch: boolean, cb: Callback<[string[]]>): number;
  a_delete_(path: string, version: number, cb: Callback<[]>): number;
}

const NO_NODE = -101;

/** Deletes the znode `path` and everything under it; absent is fine. */
export async function dropZkTree(connect: string, path: string): Promise<void> {
  const ZooKeeper = createRequire(import.meta.url)('zookeeper') as new (c: object) => NativeZk;
  const zk = new ZooKeeper({
    connect,
    timeout: 10_000,
    debug_level: 0,
    host_order_deterministic: false,
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ZooKeeper session with ${connect}`)),
      10_000,
    );
    zk.once('connect', () => {
      clearTimeout(timer);
      resolve();
    });
    zk.init({});
  });
  // At most 512 requests in flight: a namespace may hold 100,000 znodes.
  let inFlight = 0;
  const queue: (() => void)[] = [];
  const call = async <T extends unknown[]>(send: (cb: Callback<T>) => number) => {
    if (inFlight >= 512) await new Promise<void>((r) => queue.push(r));
    inFlight++;
    try {
      return await new Promise<T | undefined>((resolve, reject) => {
        send((rc, error, ...result) => {
          if (rc === 0) resolve(result);
          else if (rc === NO_NODE) resolve(undefined);
          else reject(new Error(`ZooKeeper cleanup failed: ${error} (${rc})`));
        });
      });
    } finally {
      inFlight--;
      queue.shift()?.();
    }
  };
  const drop = async (node: string): Promise<void> => {
    const children = (await call<[string[]]>((cb) => zk.a_get_children(node, false, cb)))?.[0];
    await Promise.all((children ?? []).map((child) => drop(`${node}/${child}`)));
    await call<[]>((cb) => zk.a_delete_(node, -1, cb));
  };
  try {
    await drop(path);
  } finally {
    zk.close();
  }
}
