import { Redis } from 'ioredis';
import { ioredisOptions, type RedisConfig } from './redis-config.js';
import { openFailure } from './redis-errors.js';
import type { RedisClient } from './redis-script.js';

// Kept from the server's own error at connect (ioredis reports them as events, and then
// rejects the connect with a bare "Connection is closed").
const FATAL_AT_CONNECT = /DB index is out of range/;

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
export async function connect(config: RedisConfig): Promise<Redis> {
  let ready = false;
  let reason: unknown;
  let fatal = false;
  const redis = new Redis(ioredisOptions(config, () => ready));
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

/** Closes politely when the link is up (QUIT), at once otherwise; never throws. */
export async function disconnect(redis: RedisClient | undefined): Promise<void> {
  if (!redis) return;
  if (redis.status === 'ready') await redis.quit().catch(() => undefined);
  if (redis.status !== 'end') redis.disconnect();
}
