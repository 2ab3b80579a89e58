import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FateId, Status } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually, mapLimit, useFixture } from '../store/context.js';

const WORKER = fileURLToPath(new URL('../child/engine-worker.js', import.meta.url));
const LIVENESS_MS = 2_000;

interface Run {
  readonly event: 'start' | 'end';
  readonly instance: string;
  readonly id: FateId;
  readonly n: number;
  readonly at: number;
}

function readLog(file: string): Run[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [event, instance, id, n, at] = line.split(' ');
      return { event, instance, id, n: Number(n), at: Number(at) } as Run;
    });
}

function startWorker(
  url: string,
  name: string,
  log: string,
  backendModule = '',
): Promise<ChildProcess> {
  const child = fork(WORKER, [url, name, log, '8', String(LIVENESS_MS), backendModule], {
    stdio: 'inherit',
  });
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`worker ${name} exited with ${code}`)));
  });
}

export function processKillTests(target: ConformanceTarget): void {
  describe('real processes', () => {
    const ctx = useFixture(target);

    it('finishes 1,000 transactions on 3 processes when one is SIGKILLed mid-run', async (t) => {
      if (!ctx.store.capabilities.multiProcess || !ctx.fixture.url) {
        t.skip(); // the backend declares no multi-process support
        return;
      }
      const url = ctx.fixture.url;
      const dir = mkdtempSync(join(tmpdir(), 'fate-kill-'));
      const log = join(dir, 'steps.log');
      const children: ChildProcess[] = [];
      try {
        for (const name of ['w1', 'w2', 'w3'])
          children.push(await startWorker(url, name, log, ctx.fixture.backendModule));
        const ids = await mapLimit(
          Array.from({ length: 1_000 }),
          50,
          async () =>
            (
              await ctx.store.seed({
                step: { type: 'proc', state: { n: 1, total: 3, sleepMs: 5 } },
                opName: 'proc',
              })
            ).id,
        );
        // kill w1 while it holds reservations
        await eventually(
          'w1 holds work',
          async () => {
            const held = await ctx.store.reservations();
            return (
              held.filter((r) => r.reservation.lockId === 'w1').length >= 3 &&
              readLog(log).length > 600
            );
          },
          60_000,
        );
        const heldAtKill = new Set(
          (await ctx.store.reservations())
            .filter((r) => r.reservation.lockId === 'w1')
            .map((r) => r.id),
        );
        children[0]?.kill('SIGKILL');
        const killedAt = Date.now();
        await eventually(
          'all 1,000 finished',
          async () => (await ctx.store.list({ statuses: [Status.SUCCESSFUL] })).length === 1_000,
          120_000,
        );

        const runs = readLog(log);
        // no transaction was held by two live instances at once: step runs never overlap,
        // except where a run of the killed instance was cut short (it ends at the kill)
        const byId = new Map<
          FateId,
          Array<{ instance: string; n: number; start: number; end: number }>
        >();
        const open = new Map<string, Run>();
        for (const r of runs) {
          const key = `${r.instance} ${r.id} ${r.n}`;
          if (r.event === 'start') open.set(key, r);
          else {
            const s = open.get(key);
            open.delete(key);
            if (!byId.has(r.id)) byId.set(r.id, []);
            byId.get(r.id)?.push({ instance: r.instance, n: r.n, start: s?.at ?? r.at, end: r.at });
          }
        }
        for (const s of open.values()) {
          expect(s.instance, 'only the killed instance leaves unfinished steps').toBe('w1');
          if (!byId.has(s.id)) byId.set(s.id, []);
          byId.get(s.id)?.push({ instance: s.instance, n: s.n, start: s.at, end: killedAt });
        }
        let reruns = 0;
        for (const id of ids) {
          const list = (byId.get(id) ?? []).sort((a, b) => a.start - b.start);
          for (let i = 1; i < list.length; i++) {
            const [prev, next] = [list[i - 1], list[i]];
            if (prev && next && prev.instance !== next.instance)
              expect(next.start).toBeGreaterThanOrEqual(prev.end);
          }
          const steps = new Set(list.map((r) => r.n));
          expect(steps, id).toEqual(new Set([1, 2, 3]));
          reruns += list.length - 3;
        }
        // only steps cut short by the kill run twice
        expect(reruns).toBeLessThanOrEqual(heldAtKill.size);
        // the killed instance's transactions resumed within the liveness timeout (+ a check period and a scan)
        const resumed = runs
          .filter(
            (r) =>
              r.event === 'start' &&
              r.instance !== 'w1' &&
              heldAtKill.has(r.id) &&
              r.at >= killedAt,
          )
          .map((r) => r.at);
        expect(resumed.length).toBeGreaterThan(0);
        const recoveryMs = Math.min(...resumed) - killedAt;
        expect(recoveryMs).toBeLessThanOrEqual(LIVENESS_MS + 1_000);
        console.log(
          `${target.name}: recovery after SIGKILL ${recoveryMs} ms; ${heldAtKill.size} held at kill; ${reruns} step re-runs`,
        );
      } finally {
        for (const c of children.slice(1)) c.kill('SIGTERM');
        await Promise.all(
          children
            .slice(1)
            .map((c) => new Promise((r) => (c.exitCode === null ? c.once('exit', r) : r(null)))),
        );
        for (const c of children)
          if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
