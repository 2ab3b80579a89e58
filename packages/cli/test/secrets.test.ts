import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { openStore } from '@fate/core';
import {
  type PostgresTestService,
  type RedisTlsTestService,
  startPostgres,
  startRedisTls,
  startZooKeeper,
  type ZooKeeperTestService,
} from '@fate/test-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fate, MAIN } from './cli-harness.js';

// No error message or output line ever holds a password: every bad URL and every refused
// credential, on every backend, in process (the error, its causes, as a logger would print
// it) and through the CLI (stdout and stderr).
const SECRET = 'Sup3r-Secret-Pw';

let zk: ZooKeeperTestService;
let redis: RedisTlsTestService;
let pg: PostgresTestService;
const chroot = `/fate-secrets-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  [zk, redis, pg] = await Promise.all([
    startZooKeeper(),
    startRedisTls(),
    startPostgres({ tls: true }),
  ]);
  // a chroot owned by another identity, which the secret's credentials cannot use
  const owner = await openStore(`${zk.url.replace('zk://', 'zk://owner:owner-pw@')}${chroot}`);
  await owner.close();
}, 120_000);

afterAll(async () => {
  await Promise.all([zk?.stop(), redis?.stop(), pg?.stop()]);
});

/** Bad URLs, each with the secret as its password (or a password parameter). */
const BAD_URLS = [
  `//user:${SECRET}@host/x`,
  `zk://user:${SECRET}@host:99999/fate`,
  `zk://user:${SECRET}@host:2181/fate?bogus=1`,
  `zk://user:${SECRET}@host:2181/has space`,
  `zk://:${SECRET}@host:2181/fate`,
  `zk://user:p@${SECRET}@host:2181/fate`,
  `redis://user:${SECRET}@host:99999`,
  `rediss://user:${SECRET}@host:6380?bogus=1`,
  `redis://user:${SECRET}@host:6379/notanumber`,
  `redis://user:${SECRET}@host:6379?ca=/x.pem`,
  `postgres://user:${SECRET}@host/db?schema=Bad-Name`,
  `postgres://user:${SECRET}@host/db?poolSize=0`,
  `postgres://user@host/db?password=${SECRET}&schema=Bad-Name`,
  `postgres://user:${SECRET}@host/db?sslmode=no-verify`,
  // an unencoded @ in the password: the userinfo runs to the authority's last @
  `postgres://user:p@${SECRET}@host/db?schema=Bad-Name`,
];

/** Real services refusing the secret as a password (or its identity the chroot). */
const refusedUrls = () => [
  `${zk.url.replace('zk://', `zk://intruder:${SECRET}@`)}${chroot}`,
  redis.url.replace('rediss://', `rediss://intruder:${SECRET}@`),
  (() => {
    const u = new URL(pg.url);
    u.username = 'intruder';
    u.password = SECRET;
    return u.href;
  })(),
  (() => {
    const u = new URL(pg.url);
    u.searchParams.set('password', SECRET);
    u.username = 'intruder';
    return u.href;
  })(),
];

/** Everything an error can show: its message, stack, causes, and how a logger prints it. */
function everything(err: unknown): string {
  const parts: string[] = [inspect(err, { depth: 8 })];
  for (let e = err as Error | undefined; e; e = (e as { cause?: Error }).cause) {
    parts.push(String(e.message), String(e.stack), JSON.stringify(e));
  }
  return parts.join('\n');
}

async function openError(url: string): Promise<unknown> {
  try {
    const store = await openStore(url);
    await store.close();
  } catch (err) {
    return err;
  }
  throw new Error('the store opened');
}

describe('secrets in messages', () => {
  it('no bad URL is echoed with its password, in process', async () => {
    for (const url of BAD_URLS) {
      const err = (await openError(url)) as { code?: string };
      expect(['FATE_BAD_URL', 'FATE_INVALID_ARGUMENT'], url).toContain(err.code);
      expect(everything(err), url).not.toContain(SECRET);
    }
  });

  it('no refused credential shows up in the error, its causes or a logged form of it', async () => {
    for (const url of refusedUrls()) {
      const err = (await openError(url)) as { code?: string };
      expect(err.code, url).toBe('FATE_STORE_CONFIG');
      expect(everything(err), url).not.toContain(SECRET);
    }
  });

  it('the CLI prints neither, on stdout or stderr', async () => {
    // one bad URL per backend (and one without a scheme), every refused credential
    const bad = BAD_URLS.filter((u, i) => i === 0 || !BAD_URLS[i - 1]?.startsWith(u.slice(0, 4)));
    expect(bad.length).toBe(4);
    for (const url of [...bad, ...refusedUrls()]) {
      const run = await fate(['list', '--store', url], { timeoutMs: 30_000 });
      expect(run.code, `${url}\n${run.stderr}`).not.toBe(0);
      expect(run.stderr.length, url).toBeGreaterThan(0);
      expect(`${run.stdout}${run.stderr}`, url).not.toContain(SECRET);
    }
  });
});

/** `fate ui` on `url` until its first page is read: that page and all it printed. */
async function uiRun(url: string): Promise<{ page: string; output: string }> {
  const { FATE_STORE: _ignored, FATE_UI_TOKEN: _token, ...env } = process.env;
  const ui = spawn(process.execPath, [MAIN, 'ui', '--port', '0', '--store', url], { env });
  let output = '';
  const exited = new Promise<number | null>((resolve) => ui.once('exit', resolve));
  const listening = new Promise<string>((resolve, reject) => {
    const seen = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const at = /fate ui: (http:\/\/\S+)/.exec(output)?.[1];
      if (at) resolve(at);
    };
    ui.stdout.on('data', seen);
    ui.stderr.on('data', seen);
    exited.then(() => reject(new Error(`fate ui exited:\n${output}`)));
  });
  try {
    const page = await (await fetch(`${await listening}/`)).text();
    return { page, output };
  } finally {
    ui.kill('SIGTERM');
    await exited;
  }
}

describe('the console', () => {
  it('shows and logs its store URL without sslpassword= or password= values', async () => {
    const schema = `secrets_${randomUUID().slice(0, 8)}`;
    const url = `${pg.url}&schema=${schema}&sslpassword=${SECRET}&password=${SECRET}`;
    await (await openStore(url)).close();
    const { page, output } = await uiRun(url);
    expect(output).toContain('serving postgres://');
    expect(output).toContain('sslpassword=***');
    expect(page).toContain('sslpassword=***');
    expect(`${page}${output}`).not.toContain(SECRET);
  }, 60_000);
});
