import {
  memoryTarget,
  REGRESSIONS,
  runScenario,
  type Scenario,
  type SimTarget,
} from '@fate/conformance/simulation';
import { type BackendAgeOffQuery, type FateId, MemoryBackend, type Reservation } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { cliAdmin } from './cli-admin.js';

// The memory backend ages off through its batched store-side delete (`deleteAgedOff`), as
// SQLite, PostgreSQL and Redis do; the simulation must run that path and judge its deletes.

/** The memory backend, counting the batched deletes that removed something. */
class CountedAgeOff extends MemoryBackend {
  static removed = 0;

  override async deleteAgedOff(ids: readonly string[], q: BackendAgeOffQuery): Promise<number> {
    const n = await super.deleteAgedOff(ids, q);
    CountedAgeOff.removed += n;
    return n;
  }
}

/**
 * A broken batched delete: every listed id that is unreserved goes, finished or not (no
 * check of what the record holds now). Each reservation and delete applies when called,
 * in one instant, as a store's one-step delete would.
 */
class CarelessAgeOff extends MemoryBackend {
  override async deleteAgedOff(ids: readonly string[]): Promise<number> {
    const r: Reservation = {
      lockId: 'careless-age-off',
      uuid: '00000000-0000-4000-8000-000000000000',
    };
    const done = ids.map((id) => {
      void this.tryReserve(id as FateId, r);
      return this.write(id as FateId, r, { delete: true });
    });
    return (await Promise.all(done)).filter(Boolean).length;
  }
}

/**
 * Fault 3's race (`REGRESSIONS`), on the batched path: a keyed transaction finishes, an admin
 * age-off lists it at 500 ms, `fate delete` and a seed of the same key follow at 501 and 502
 * (the engines paused), and one call, the `gap`-th from the start, waits `delayMs`. Every gap
 * up to GAPS is tried, so one of them slows the age-off's delete past the re-seed.
 */
const GAPS = 80;
const race = (gap: number): Scenario => {
  const fault3 = REGRESSIONS.find((r) => r.name.startsWith('fault 3'));
  if (!fault3) throw new Error('REGRESSIONS lost fault 3');
  return { ...fault3.scenario, faults: [{ gap, delayMs: 1_000, fault: 'none' }] };
};

/** The first violation over every gap of `race`, on `backend`, if any. */
async function firstViolation(backend: SimTarget['backend']): Promise<string | undefined> {
  const target: SimTarget = { ...memoryTarget, backend, admin: cliAdmin };
  for (let gap = 0; gap <= GAPS; gap++) {
    const { violations } = await runScenario(race(gap), target);
    if (violations.length > 0) return `gap ${gap}: ${violations.join('\n')}`;
  }
  return undefined;
}

describe('simulation: age-off through the batched store-side delete', () => {
  it(`ages off through deleteAgedOff, with no violation, whichever of ${GAPS + 1} calls is slow`, async () => {
    CountedAgeOff.removed = 0;
    expect(await firstViolation((ns) => new CountedAgeOff(ns))).toBeUndefined();
    expect(CountedAgeOff.removed).toBeGreaterThan(0);
  }, 300_000);

  it('catches a batched delete that removes a record no longer finished', async () => {
    const violation = await firstViolation((ns) => new CarelessAgeOff(ns));
    expect(violation).toMatch(/age-off \(deleteAgedOff\) deleted \S+ while it was SUBMITTED/);
  }, 300_000);
});
