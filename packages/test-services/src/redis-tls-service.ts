import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalServer } from './local-server.js';
import { ping, redisCommand, redisServerArgs } from './redis-process.js';
import { freePorts, hasBinary, type TestService } from './support.js';
import { makeTestCertificates, type TestCertificates } from './tls-certs.js';

/** A private Redis that serves TLS with a certificate made at test time. */
export interface RedisTlsTestService extends TestService {
  /** `rediss://127.0.0.1:<tls port>?ca=<the CA's PEM file>`: what a store should connect to. */
  readonly url: string;
  /** The TLS port, and the certificates (the CA, and a CA that signed nothing). */
  readonly tlsPort: number;
  readonly certs: TestCertificates;
  /** `redis://127.0.0.1:<plain port>`: the same server without TLS, as the default user (for test set-up only). */
  readonly plainUrl: string;
  /**
   * Runs one command as the default user on the plain loopback port, which only the test
   * reaches (to set up ACL users, say): the text of a simple, bulk or integer reply.
   */
  admin(...args: string[]): Promise<string | undefined>;
}

/**
 * Starts `redis-server` with `--tls-port` and a CA and server certificate generated now
 * with `openssl` (clients are not asked for certificates). Needs `redis-server` built with
 * TLS (Debian's is) and `openssl`; throws one clear Error without them.
 */
export async function startRedisTls(): Promise<RedisTlsTestService> {
  for (const binary of ['redis-server', 'openssl']) {
    if (!hasBinary(binary)) {
      throw new Error(
        `the Redis TLS tests need ${binary}: apt-get install -y redis-server openssl`,
      );
    }
  }
  const [port, tlsPort] = (await freePorts(2)) as [number, number];
  const dir = mkdtempSync(join(tmpdir(), 'fate-redis-tls-'));
  const certs = makeTestCertificates(dir);
  const server = await startLocalServer({
    name: `redis-server with TLS on port ${tlsPort}`,
    command: 'redis-server',
    args: [
      ...redisServerArgs(port, dir),
      '--tls-port',
      String(tlsPort),
      '--tls-cert-file',
      certs.cert,
      '--tls-key-file',
      certs.key,
      '--tls-ca-cert-file',
      certs.ca,
      '--tls-auth-clients',
      'no',
    ],
    dir,
    ready: () => ping('127.0.0.1', port),
    startTimeoutMs: 20_000,
    termGraceMs: 10_000,
  });
  return {
    url: `rediss://127.0.0.1:${tlsPort}?ca=${encodeURIComponent(certs.ca)}`,
    tlsPort,
    plainUrl: `redis://127.0.0.1:${port}`,
    certs,
    admin: (...args) => redisCommand('127.0.0.1', port, ...args),
    stop: () => server.stop(),
  };
}
