import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';

/** A running service for tests; `stop` is safe to call twice. */
export interface TestService {
  /** Where clients connect (a store URL or connect string). */
  readonly url: string;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0] as number;
}

/**
 * `count` distinct free TCP ports on 127.0.0.1: all are held open at once before any is
 * released, so an ensemble or cluster never gets the same port twice.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  try {
    return await Promise.all(
      servers.map(
        (server) =>
          new Promise<number>((resolve, reject) => {
            server.unref();
            server.on('error', reject);
            server.listen(0, '127.0.0.1', () => {
              const address = server.address();
              if (typeof address === 'object' && address) resolve(address.port);
              else reject(new Error('no port'));
            });
          }),
      ),
    );
  } finally {
    await Promise.all(
      servers.map((server) => new Promise((r) => (server.listening ? server.close(r) : r(null)))),
    );
  }
}

/** True when a binary is on PATH (or is an existing absolute path). */
export function hasBinary(name: string): boolean {
  if (name.startsWith('/')) return existsSync(name);
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** True when a Docker engine answers (not merely the CLI). */
export function hasDockerEngine(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}

/** Waits until `probe` resolves true, polling; throws after `timeoutMs`. */
export async function waitFor(
  what: string,
  probe: () => Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs} ms`);
}

/**
 * Sends `request` over a fresh TCP connection and resolves with the reply, read until
 * `complete(reply)` or until the server closes; '' when nothing answers within 1 s.
 * Enough to probe a server's readiness without its client library.
 */
export function askTcp(
  host: string,
  port: number,
  request: string,
  complete: (reply: string) => boolean = () => false,
): Promise<string> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    let reply = '';
    const done = (answer: string) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => done(''));
    socket.on('error', () => done(''));
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (complete(reply)) done(reply);
    });
    socket.on('end', () => done(reply));
  });
}
