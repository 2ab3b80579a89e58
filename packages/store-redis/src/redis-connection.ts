import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { FateError, FateErrorCode } from '@fate/core';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import type { RedisNode, ResolvedRedisConfig } from './redis-config.js';
import { describeTarget, openFailure } from './redis-errors.js';
import type { RedisClient } from './redis-script.js';

// Kept from the server's own error at connect (ioredis reports them as events, and then
// rejects the connect with a bare "Connection is closed").
const FATAL_AT_CONNECT = /DB index is out of range/;

/**
 * ioredis options that fail fast instead of queueing: a command sent while the link is
 * down is refused at once (no offline queue), commands in flight when it drops are
 * rejected rather than resent (a resend the guard does not know of could turn an applied
 * release into "not reserved"), and every command has a deadline.
 */
function nodeOptions(config: ResolvedRedisConfig): RedisOptions {
  return {
    ...(config.username !== undefined ? { username: config.username } : {}),
    ...(config.password !== undefined ? { password: config.password } : {}),
    ...(config.tls ? { tls: tlsOptions(config) } : {}),
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: config.commandTimeoutMs,
    connectTimeout: config.connectTimeoutMs,
    // A socket disconnect() ends but that never closes (ioredis ends some twice, the
    // second time after they closed) is destroyed after this; 2 s by default, which
    // kept a process alive that had nothing else to do.
    disconnectTimeout: 100,
  };
}

/**
 * TLS as Node verifies it by default (`rejectUnauthorized` is never turned off): the chain
 * up to the system's CAs or the `ca` file's, and the host name or IP address in the
 * certificate. The `ca` file is read at every connect, so a rotated CA is picked up.
 */
function tlsOptions(config: ResolvedRedisConfig): ConnectionOptions {
  // SNI takes a host name only; an IP address is checked against the certificate instead.
  const sni = isIP(config.host) ? {} : { servername: config.host };
  if (config.ca === undefined) return sni;
  try {
    return { ...sni, ca: readFileSync(config.ca) };
  } catch (cause) {
    const code = (cause as { code?: string }).code ?? 'error';
    throw new FateError(
      FateErrorCode.STORE_CONFIG,
      `Redis at ${describeTarget(config)}: cannot read the CA file ${JSON.stringify(config.ca)} (${code})`,
    );
  }
}

/** Reconnection goes on in the background while `reconnect()` says so (after the first ready). */
const backoff = (reconnect: () => boolean) => (attempt: number) =>
  reconnect() ? Math.min(50 * attempt, 1_000) : null;

/**
 * Opens one connection and waits until it is ready. A failed open fails once, with the
 * server's or the network's reason (`openFailure`), and leaves no reconnect timer behind:
 * the connection reconnects in the background only after it has been ready once.
 * ioredis reports connection errors as events; they are kept quiet here (each failing
 * call reports its own error).
 *
 * ioredis carries on in database 0 after a failed SELECT, so a database the server does
 * not have is refused at every connect: at open the connection is closed once ready (the
 * SELECT's answer comes before the ready check's, so nothing else was sent), and on a
 * later reconnect it is closed for good before it is ready, so no call reaches database 0.
 */
export async function connect(config: ResolvedRedisConfig): Promise<Redis> {
  let ready = false;
  let reason: unknown;
  let fatal = false;
  const redis = new Redis({
    ...nodeOptions(config),
    host: config.host,
    port: config.port,
    db: config.db,
    retryStrategy: backoff(() => ready),
    // Group commit (issue 23): the commands of one event-loop turn (the finishing writes of
    // many workers) go out as one pipeline, one socket write and one read of the replies;
    // each script call keeps its own fence and reply, and a dropped link fails each on its
    // own, as before (the guard reads back what it cannot know). Not on a Cluster client,
    // which sends through its nodes' connections. 16 workers draining a backlog here: about
    // a quarter less client CPU per transaction (docs/benchmarks.md).
    enableAutoPipelining: true,
  });
  redis.on('error', (err: Error) => {
    // the first error is the cause; what follows a closed connection is its echo
    reason ??= err;
    if (!FATAL_AT_CONNECT.test(err.message)) return;
    fatal = true;
    if (ready) redis.disconnect();
  });
  try {
    await redis.connect();
  } catch (err) {
    // An ended connection has let go of its socket; disconnecting it again would start
    // ioredis's 2 s teardown timer on a stream that never closes again.
    if (redis.status !== 'end') redis.disconnect();
    throw openFailure(config, reason ?? err);
  }
  if (fatal) {
    await disconnect(redis);
    throw openFailure(config, reason);
  }
  ready = true;
  return redis;
}

/**
 * Opens an ioredis `Cluster` client on the seed nodes and waits until it knows every
 * slot's master. Fail-fast like a single connection, and more: ioredis would repeat a
 * command whose node connection closed ("failover" retry) — also one that was in flight
 * and may have applied — so that retry is off, and so is the CLUSTERDOWN one; the guard
 * asks again itself, knowing it does. MOVED/ASK/TRYAGAIN are followed (nothing ran).
 */
export async function connectCluster(config: ResolvedRedisConfig): Promise<Cluster> {
  let ready = false;
  let reason: unknown;
  const options: ClusterOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    scaleReads: 'master',
    retryDelayOnFailover: 0,
    retryDelayOnClusterDown: 0,
    slotsRefreshTimeout: config.connectTimeoutMs,
    clusterRetryStrategy: (attempt) => (ready ? Math.min(100 * attempt, 1_000) : null),
    redisOptions: nodeOptions(config),
  };
  const seeds = (config.nodes ?? [config]).map(({ host, port }) => ({ host, port }));
  const cluster = new Cluster(seeds, options);
  cluster.on('error', (err: Error & { lastNodeError?: Error }) => {
    reason ??= err.lastNodeError ?? err;
  });
  cluster.on('node error', (err: Error) => {
    reason ??= err;
  });
  try {
    await cluster.connect();
  } catch (err) {
    if (cluster.status !== 'end') cluster.disconnect();
    throw openFailure(config, (await whyNot(config, seeds)) ?? reason ?? err);
  }
  ready = true;
  return cluster;
}

/**
 * Why no seed of a Cluster answers: ioredis asks them for their slots on connections
 * whose errors it ignores, and reports "Connection is closed" only. One plain connection
 * per seed, made only after a failed open, gets the reason (refused, wrong password, …).
 */
async function whyNot(config: ResolvedRedisConfig, seeds: readonly RedisNode[]): Promise<unknown> {
  const reasons = await Promise.all(
    seeds.map(({ host, port }) =>
      connect({ ...config, nodes: undefined, host, port }).then(
        disconnect,
        (err: Error) => err.cause ?? err, // the server's error, not the probe's wrapper
      ),
    ),
  );
  return reasons.find((r) => r !== undefined);
}

/** Closes politely when the link is up (QUIT), at once otherwise; never throws. */
export async function disconnect(redis: RedisClient | undefined): Promise<void> {
  if (!redis) return;
  // QUIT is never auto-pipelined: it would be written before the commands of this turn
  // still waiting for their pipeline. A PING is, and its reply comes after theirs.
  if (redis.status === 'ready') await redis.ping().catch(() => undefined);
  if (redis.status === 'ready') await redis.quit().catch(() => undefined);
  if (redis.status !== 'end') redis.disconnect();
}
