import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// Timing helpers of `--mode scale`: an operation's median, and the CLI run as a process.

export const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../../../cli/dist/main.js', import.meta.url));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export async function timed<T>(fn: () => Promise<T>, times = 5): Promise<{ ms: number; last: T }> {
  const ms: number[] = [];
  let last: T | undefined;
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    last = await fn();
    ms.push(performance.now() - t);
  }
  return { ms: median(ms), last: last as T };
}

/** Runs the CLI once as a process: wall ms and max RSS (MB). */
export async function cli(args: string[]): Promise<{ ms: number; rssMb: number }> {
  const t = performance.now();
  const { stderr } = await run(
    '/usr/bin/time',
    ['-f', 'RSSKB %M', process.execPath, CLI, ...args],
    {
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const ms = performance.now() - t;
  const kb = Number(/RSSKB (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
  return { ms: Math.round(ms), rssMb: Math.round(kb / 1024) };
}
