import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { StoreFixture } from '@fate/conformance';
import { type RedisTestService, startRedis } from '@fate/test-services';
import { redisFixture } from '../../store-redis/test/redis-fixture.js';
import { sqliteFixture } from '../../store-sqlite/test/sqlite-fixture.js';

// The CLI's tests run its real binary, as an operator would, against real stores: the
// stores' own conformance fixtures give each case an isolated data set (a temp SQLite
// file, a fresh Redis key prefix on a private server) and a way to corrupt a record.

export const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `node dist/main.js ...args` and resolves with its exit status and output. Bounded:
 * after `timeoutMs` the process is killed and the promise rejects with what it printed.
 */
export function fate(
  args: readonly string[],
  options: { readonly cwd?: string; readonly timeoutMs?: number } = {},
): Promise<CliRun> {
  const timeout = options.timeoutMs ?? 30_000;
  // $FATE_STORE of the environment must not choose the store of a case
  const { FATE_STORE: _ignored, ...env } = process.env;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      { cwd: options.cwd, env, timeout, killSignal: 'SIGKILL', maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        if (err?.killed) {
          reject(
            new Error(`fate ${args.join(' ')}: no exit within ${timeout} ms\n${stdout}${stderr}`),
          );
          return;
        }
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export interface CliBackend {
  readonly name: string;
  /** A fresh, isolated store; its `url` is what `--store` gets. */
  fixture(): Promise<StoreFixture & { readonly url: string }>;
}

let redis: Promise<RedisTestService> | undefined;

export const BACKENDS: readonly CliBackend[] = [
  { name: 'sqlite', fixture: async () => withUrl(sqliteFixture()) },
  {
    name: 'redis',
    async fixture() {
      redis ??= startRedis();
      return withUrl(await redisFixture((await redis).url));
    },
  },
];

function withUrl(fixture: StoreFixture): StoreFixture & { readonly url: string } {
  const { url } = fixture;
  if (url === undefined) throw new Error('the CLI tests need a fixture with a URL');
  return Object.assign(fixture, { url });
}

/** Stops the services the backends started; call from `afterAll`. */
export async function stopServices(): Promise<void> {
  const started = redis;
  redis = undefined;
  await (await started?.catch(() => undefined))?.stop();
}
