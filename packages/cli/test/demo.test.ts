import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKENDS, type CliRun, fate, stopServices } from './cli-harness.js';

afterAll(stopServices);

const sh = promisify(execFile);
const RUN_COUNTS =
  /in the store, this run \(op (order-[0-9a-f]{8})\): (\d+) SUCCESSFUL, (\d+) FAILED \((\d+) fully undone\), (\d+) other/;

/** The admin commands the demo printed under "look at what it left:", as shell lines. */
function printedCommands(run: CliRun): string[] {
  const [, after = ''] = run.stdout.split('  look at what it left:\n');
  return after
    .split('\n')
    .filter((line) => line.startsWith('    '))
    .map((line) => line.trim());
}

/** Runs a printed command line in a shell, exactly as an operator would paste it. */
async function paste(line: string, cwd: string): Promise<string> {
  const { stdout } = await sh('sh', ['-c', line], { cwd, timeout: 30_000, killSignal: 'SIGKILL' });
  return stdout;
}

/** Processes whose command line mentions `text` (the demo's processes carry the store URL). */
async function processesWith(text: string): Promise<string[]> {
  const { stdout } = await sh('ps', ['-eo', 'args']);
  return stdout.split('\n').filter((line) => line.includes(text) && !line.startsWith('ps '));
}

it('runs the demo end to end on a fresh SQLite file and prints the commands to look at it', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'fate-demo-'));
  try {
    const run = await fate(['demo', '--orders', '200'], { cwd, timeoutMs: 90_000 });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/SIGKILL process-\d while it held \d+ transactions/);
    expect(run.stdout).toMatch(RUN_COUNTS);
    const [, op, ok, failed, undone, other] = RUN_COUNTS.exec(run.stdout) ?? [];
    expect([ok, failed, undone, other]).toEqual(['180', '20', '20', '0']);
    expect(run.stdout).toMatch(
      /recovery after SIGKILL of process-\d: \d+ ms \(resumed on process-\d\)/,
    );
    expect(run.stdout).toMatch(/throughput: 200 transactions in [\d.]+ s/);
    expect(await processesWith(cwd)).toEqual([]);

    // the printed commands look at the demo's store, not at ./fate.db
    const [summary, list, show, ...more] = printedCommands(run);
    expect(more).toEqual([]);
    expect(summary).toContain(`summary --store sqlite:${join(cwd, '.fate-demo', 'fate.db')}`);
    expect(await paste(summary as string, cwd)).toContain(
      `\n  op ${op}: FAILED 20, SUCCESSFUL 180\n`,
    );
    expect(await paste(list as string, cwd)).toMatch(/\n20 transactions\n$/);
    const shown = await paste(show as string, cwd);
    expect(shown).toMatch(/^status {8}FAILED /m);
    expect(shown).toMatch(/^error {9}Error: order \d*7: carrier rejected the parcel$/m);
    expect(shown).toContain('\nstack         empty\n');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}, 120_000);

describe.each(BACKENDS)('fate demo on $name', (backend) => {
  it('runs twice on the same store, each run counting only its own orders', async () => {
    const fixture = await backend.fixture();
    const cwd = mkdtempSync(join(tmpdir(), 'fate-demo-'));
    try {
      const ops: string[] = [];
      let last: CliRun | undefined;
      for (const _ of [1, 2]) {
        last = await fate(['demo', '--orders', '150', '--store', fixture.url], {
          cwd,
          timeoutMs: 90_000,
        });
        expect(last.stderr).toBe('');
        expect(last.code).toBe(0);
        const [, op = '', ok, failed, undone, other] = RUN_COUNTS.exec(last.stdout) ?? [];
        expect([ok, failed, undone, other]).toEqual(['135', '15', '15', '0']);
        ops.push(op);
      }
      expect(new Set(ops).size).toBe(2);
      const summary = await paste(printedCommands(last as CliRun)[0] as string, cwd);
      expect(summary).toMatch(/^300 transactions, 0 reserved/);
      for (const op of ops) expect(summary).toContain(`\n  op ${op}: FAILED 15, SUCCESSFUL 135\n`);
      expect(await processesWith(fixture.url)).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
      await fixture.destroy();
    }
  }, 200_000);

  it('gives up with a clear message, never hangs, when the orders do not finish in time', async () => {
    const fixture = await backend.fixture();
    try {
      const run = await fate(
        ['demo', '--orders', '3000', '--timeout', '1', '--store', fixture.url],
        { timeoutMs: 60_000 },
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /^fate demo: \d+ of 3000 orders \(op order-[0-9a-f]{8}\) have not finished within the time allowed; give more with --timeout \[FATE_TIMEOUT\]\n$/,
      );
      // what it left can still be looked at
      expect(printedCommands(run)[0]).toContain('summary --store');
      expect(await processesWith(fixture.url)).toEqual([]);
    } finally {
      await fixture.destroy();
    }
  }, 90_000);
});
