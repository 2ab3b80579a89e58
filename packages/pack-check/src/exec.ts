import { spawn } from 'node:child_process';

/** A check that failed: its message says what is wrong and, where it can, how to fix it. */
export class PackCheckError extends Error {
  override readonly name = 'PackCheckError';
}

export interface RunOptions {
  readonly cwd: string;
  readonly timeoutMs: number;
  /** Added to the cleaned environment (see `userEnv`). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/**
 * The environment of a user's shell: without the `npm_*` variables `npm run test:pack` sets.
 * An inherited `npm_config_local_prefix` would point an `npm install` in the temp project
 * back at the workspace, and `npm_package_*` would leak the workspace's manifest into
 * install scripts.
 */
export function userEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'INIT_CWD') env[key] = value;
  }
  return { ...env, ...extra };
}

/** Runs a command to its end (or its timeout) and resolves with its output and exit code. */
export function run(command: string, args: readonly string[], o: RunOptions): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], {
      cwd: o.cwd,
      env: userEnv(o.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      stderr += `\n[pack-check: killed after ${o.timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, o.timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** `run` for a command that must succeed: a non-zero exit is a `PackCheckError` with its output. */
export async function mustRun(
  what: string,
  command: string,
  args: readonly string[],
  o: RunOptions,
): Promise<RunResult> {
  const result = await run(command, args, o);
  if (result.code !== 0) {
    throw new PackCheckError(
      `${what} failed (exit ${result.code}): ${command} ${args.join(' ')} in ${o.cwd}\n` +
        tail(`${result.stdout}\n${result.stderr}`),
    );
  }
  return result;
}

/** The last lines of a command's output, enough to see why it failed. */
export function tail(text: string, lines = 40): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}
