import { createRequire } from 'node:module';

// Removing one run's namespace from a shared service (a PostgreSQL schema, a Redis key
// prefix, a ZooKeeper chroot): for tests and benchmarks that run against a service someone
// pointed them at, where deleting the whole server is not theirs to do.

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

type ZkCallback<T extends unknown[]> = (rc: number, error: unknown, ...result: T) => unknown;

/** The slice of a `zookeeper` binding session (C client) that removing a tree uses. */
export interface ZkTreeClient {
  a_get_children(path: string, watch: boolean, cb: ZkCallback<[string[]]>): unknown;
  a_delete_(path: string, version: number, cb: ZkCallback<[]>): unknown;
}

const NO_NODE = -101;

/**
 * Deletes the znode `path` and everything under it, children first, on an open session
 * (authenticated as whoever may delete it); absent is fine. At most 512 requests are in
 * flight: a namespace may hold 100,000 znodes.
 */
export async function removeZkTree(zk: ZkTreeClient, path: string): Promise<void> {
  let inFlight = 0;
  const queue: (() => void)[] = [];
  const call = async <T extends unknown[]>(send: (cb: ZkCallback<T>) => unknown) => {
    if (inFlight >= 512) await new Promise<void>((r) => queue.push(r));
    inFlight++;
    try {
      return await new Promise<T | undefined>((resolve, reject) => {
        send((rc, error, ...result) => {
          if (rc === 0) resolve(result);
          else if (rc === NO_NODE) resolve(undefined);
          else reject(new Error(`ZooKeeper cleanup of ${path} failed: ${error} (${rc})`));
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
  await drop(path);
}

/** What opening a session needs of a `zookeeper` binding handle. */
export interface ZkSessionLike {
  init(config: object): void;
  once(event: 'connect', listener: () => void): unknown;
}

/**
 * A new handle of `ZooKeeper` (the binding's class) on `config.connect`, resolved once its
 * session is established; fails after 10 s without one.
 */
export async function openZkSession<T extends ZkSessionLike>(
  ZooKeeper: new (config: object) => T,
  config: { readonly connect: string } & Record<string, unknown>,
): Promise<T> {
  const zk = new ZooKeeper({ timeout: 10_000, debug_level: 0, ...config });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no ZooKeeper session with ${config.connect}`)),
      10_000,
    );
    zk.once('connect', () => {
      clearTimeout(timer);
      resolve();
    });
    zk.init({});
  });
  return zk;
}

/** Opens a session with `connect`, deletes the znode `path` and everything under it, closes. */
export async function dropZkTree(connect: string, path: string): Promise<void> {
  const ZooKeeper = createRequire(import.meta.url)('zookeeper') as new (
    c: object,
  ) => ZkTreeClient & ZkSessionLike & { close(): void };
  const zk = await openZkSession(ZooKeeper, { connect, host_order_deterministic: false });
  try {
    await removeZkTree(zk, path);
  } finally {
    zk.close();
  }
}
