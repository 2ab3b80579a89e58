import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

it('runs the demo end to end: workers, a SIGKILL, recovery, a summary', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'fate-demo-'));
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [MAIN, 'demo', '--orders', '300'],
      {
        cwd,
        timeout: 90_000,
      },
    );
    expect(stdout).toMatch(/SIGKILL worker-\d while it held \d+ transactions/);
    expect(stdout).toContain('in the store: 270 SUCCESSFUL, 30 FAILED (30 fully undone), 0 other');
    expect(stdout).toMatch(/recovery after SIGKILL of worker-\d: \d+ ms \(resumed on worker-\d\)/);
    expect(stdout).toMatch(/throughput: 300 transactions in [\d.]+ s/);
    // it leaves nothing running: no worker process still has this store open
    const { stdout: ps } = await promisify(execFile)('ps', ['-eo', 'args']);
    expect(ps.split('\n').filter((line) => line.includes(cwd))).toEqual([]);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
