import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type FateId, instanceIdOf } from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { mapLimit, useFixture } from './context.js';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('../child/reserve-race.js', import.meta.url));

export function processTests(target: ConformanceTarget): void {
  describe('across processes', () => {
    const ctx = useFixture(target);

    it('lets exactly one of two child processes hold each of 1,000 ids, losing none', async (t) => {
      if (!ctx.store.capabilities.multiProcess || !ctx.fixture.url) {
        t.skip(); // the backend declares no multi-process support
        return;
      }
      const ids = await mapLimit(Array.from({ length: 1_000 }), 100, () => ctx.store.create());
      const dir = mkdtempSync(join(tmpdir(), 'fate-race-'));
      try {
        writeFileSync(join(dir, 'ids.json'), JSON.stringify(ids));
        const startAt = String(Date.now() + 1_500);
        const children = ['p1', 'p2'].map((name) =>
          run(process.execPath, [
            CHILD,
            ctx.fixture.url as string,
            join(dir, 'ids.json'),
            join(dir, `${name}.json`),
            startAt,
            name,
            ctx.fixture.backendModule ?? '',
          ]),
        );
        await Promise.all(children);
        const won = ['p1', 'p2'].map(
          (name) => JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as FateId[],
        );
        const [a = [], b = []] = won;
        expect(a.length + b.length).toBe(1_000);
        expect(new Set([...a, ...b])).toEqual(new Set(ids));
        const holders = new Map(
          (await ctx.store.reservations()).map((r) => [r.id, instanceIdOf(r.reservation.lockId)]),
        );
        for (const id of a) expect(holders.get(id)).toBe('p1');
        for (const id of b) expect(holders.get(id)).toBe('p2');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
