import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// A smoke test of the benchmark modes: each runs end to end on SQLite with tiny numbers
// (--quick), prints its JSON and writes its own section of the report. Figures of speed
// are never asserted; what the modes must find true (nothing lost, no overlaps, every
// transaction counted) is.

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fate-bench-test-'));
const report = join(dir, 'benchmarks.md');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `node dist/main.js --mode MODE --backend sqlite --quick --json --out report`, parsed. */
function bench(mode: string, timeout = 50_000): Promise<Record<string, unknown[]>> {
  const args = [MAIN, '--mode', mode, '--backend', 'sqlite', '--quick', '--json', '--out', report];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { timeout, killSignal: 'SIGKILL', maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`--mode ${mode}: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout));
      },
    );
  });
}

describe('bench modes on sqlite (quick)', () => {
  it('storm: kills hit processes holding work, which resumes elsewhere; nothing lost, no overlaps', async () => {
    const results = await bench('storm');
    expect(results.errors).toEqual([]);
    const [row] = results.storm as Array<Record<string, number>>;
    expect(row).toMatchObject({ backend: 'sqlite', kills: 2, lost: 0, overlaps: 0 });
    expect(row?.killsWithVictims).toBeGreaterThan(0);
    expect(row?.p50ResumeMs).toBeGreaterThan(0);
    expect(Number.isFinite(row?.maxResumeMs)).toBe(true);
  });

  it('backlog: both layouts drain every transaction; latency from another process', async () => {
    const results = await bench('backlog');
    expect(results.errors).toEqual([]);
    const rows = results.backlog as Array<Record<string, number>>;
    expect(rows.map((r) => `${r.processes}×${r.workers}`)).toEqual(['1×16', '2×16']);
    for (const r of rows) expect(r.processCpuUsPerTx).toBeGreaterThan(0);
    expect(results.processLatency).toHaveLength(1);
  });

  it('pools: four rows, each with every fast sample', async () => {
    const results = await bench('pools');
    expect(results.errors).toEqual([]);
    const rows = results.pools as Array<Record<string, unknown>>;
    expect(rows.map((r) => [r.layout, r.slowBacklog, r.samples])).toEqual([
      ['pools slow 2 + fast 8', 0, 20],
      ['pools slow 2 + fast 8', 20, 20],
      ['one pool of 10', 0, 20],
      ['one pool of 10', 20, 20],
    ]);
  });

  it('peers: fate-sqlite and plainjob drain every job in three layouts; both latencies', async () => {
    const results = await bench('peers', 90_000);
    expect(results.errors).toEqual([]);
    const layouts = ['1×1', '1×16', '2×16'];
    const fate = results.backlog as Array<Record<string, number>>;
    expect(fate.map((r) => `${r.processes}×${r.workers}`)).toEqual(layouts);
    const peers = results.peers as Array<Record<string, number | string>>;
    expect(peers.map((r) => [r.system, `${r.processes}×${r.workers}`, r.txs])).toEqual(
      layouts.map((l) => ['plainjob', l, 300]),
    );
    for (const r of [...fate, ...peers]) expect(r.processCpuUsPerTx).toBeGreaterThan(0);
    expect(results.processLatency).toHaveLength(1);
    expect((results.peerLatency as Array<{ system: string }>).map((r) => r.system)).toEqual([
      'plainjob',
    ]);
    expect(readFileSync(report, 'utf8')).toContain('plainjob (SQLite) 0.0.14');
  }, 100_000);

  it('roundtrips: one insert, at most one reservation call and a write per step (the last may claim the next); sections kept', async () => {
    const results = await bench('roundtrips');
    expect(results.errors).toEqual([]);
    const rows = results.roundTrips as Array<{ steps: number; perTx: Record<string, number> }>;
    // a finishing write that carries the claim of the next (finishAndClaim) is one of the writes
    const writes = (r: { perTx: Record<string, number> }) =>
      (r.perTx.write ?? 0) + (r.perTx.finishAndClaim ?? 0);
    expect(rows.map((r) => [r.steps, r.perTx.insert])).toEqual([
      [1, 1],
      [5, 1],
    ]);
    for (const r of rows) {
      // a write per step, and now and then the release of a record reserved and then not run
      // (found finished through a stale page, say): 5.02 per 5-step transaction in 1 of 3 runs
      expect(writes(r)).toBeGreaterThanOrEqual(r.steps);
      expect(writes(r)).toBeLessThan(r.steps + 0.25);
      // claimed many at a time (claimMany), one by one (tryReserve), or with the finishing
      // write of the one before: never more than one reservation call each
      const reserving = (r.perTx.tryReserve ?? 0) + (r.perTx.claimMany ?? 0);
      expect(reserving + (r.perTx.finishAndClaim ?? 0)).toBeGreaterThan(0);
      expect(reserving).toBeLessThanOrEqual(1);
    }
    // every mode wrote its own section of the one report, and none removed another's
    const doc = readFileSync(report, 'utf8');
    for (const mode of ['storm', 'backlog', 'pools', 'roundtrips', 'peers'])
      expect(doc).toContain(`<!-- /bench:${mode} -->`);
  });

  it('scale: built stores read back as built; 1% due aged off, nothing when nothing is due', async () => {
    const json = join(dir, 'scale.json');
    for (const backend of ['sqlite', 'redis']) {
      await new Promise<void>((resolve, reject) => {
        execFile(
          process.execPath,
          [
            MAIN,
            '--mode',
            'scale',
            '--backend',
            backend,
            '--sizes',
            '2000',
            '--drain',
            '1',
            '--json',
            json,
          ],
          { timeout: 120_000, killSignal: 'SIGKILL', maxBuffer: 16 << 20 },
          (error, _stdout, stderr) =>
            error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(),
        );
      });
      const rows = JSON.parse(readFileSync(json, 'utf8')).rows as Array<Record<string, unknown>>;
      const row = rows[0] as Record<string, unknown>;
      // the run itself fails when the built store's counts or records read back wrong, or
      // when the sweep with nothing due deleted anything
      expect(row).toMatchObject({ backend, size: 2000, ageOffDeleted: 20 });
      expect((row.engine as { finished: number }).finished).toBeGreaterThan(0);
    }
  }, 300_000);
});
