// AgeOffSweep: the engine's age-off schedule — one sweep at a time, at most one per `everyMs`
// (counted from when the last began), its result told as an event, its failure as a warning.
import { describe, expect, it } from 'vitest';
import { AgeOffSweep } from '../src/engine/age-off-sweep.js';
import type { AgeOffOptions, AgeOffResult, FatesStore } from '../src/index.js';

/** A store whose `ageOff` calls wait until the case answers them. */
function storeOf() {
  const calls: Array<{
    options: AgeOffOptions | undefined;
    answer: (r: AgeOffResult) => void;
    fail: (e: unknown) => void;
  }> = [];
  const store = {
    ageOff: (options?: AgeOffOptions) =>
      new Promise<AgeOffResult>((answer, fail) => calls.push({ options, answer, fail })),
  } as unknown as FatesStore;
  return { store, calls };
}

function sweepOf(everyMs = 1_000) {
  const { store, calls } = storeOf();
  const events: Array<[string, unknown]> = [];
  const sweep = new AgeOffSweep(store, { everyMs, retentionMs: 42 }, (type, event) =>
    events.push([type, event]),
  );
  return { sweep, calls, events };
}

describe('AgeOffSweep', () => {
  it('sweeps at once the first time, with its retention, and tells what it did', async () => {
    const { sweep, calls, events } = sweepOf();
    expect(sweep.running).toBeUndefined();
    sweep.due(0);
    expect(calls.map((c) => c.options)).toEqual([{ retentionMs: 42 }]);
    const running = sweep.running;
    expect(running).toBeInstanceOf(Promise);
    calls[0]?.answer({ deleted: 2, stamped: 1 });
    await running;
    expect(sweep.running).toBeUndefined();
    expect(events).toEqual([['agedOff', { deleted: 2, stamped: 1 }]]);
  });

  it('tells nothing when a sweep found nothing to do', async () => {
    const { sweep, calls, events } = sweepOf();
    sweep.due(0);
    calls[0]?.answer({ deleted: 0, stamped: 0 });
    await sweep.running;
    expect(events).toEqual([]);
  });

  it('tells a sweep that only stamped, or only deleted', async () => {
    const { sweep, calls, events } = sweepOf();
    sweep.due(0);
    calls[0]?.answer({ deleted: 0, stamped: 3 });
    await sweep.running;
    sweep.due(1_000);
    calls[1]?.answer({ deleted: 1, stamped: 0 });
    await sweep.running;
    expect(events.map(([t]) => t)).toEqual(['agedOff', 'agedOff']);
  });

  it('runs one sweep at a time, and the next no sooner than everyMs after the last began', async () => {
    const { sweep, calls } = sweepOf(1_000);
    sweep.due(0);
    sweep.due(5_000); // one runs: not another
    expect(calls).toHaveLength(1);
    calls[0]?.answer({ deleted: 0, stamped: 0 });
    await sweep.running;
    sweep.due(999);
    expect(calls).toHaveLength(1);
    sweep.due(1_000);
    expect(calls).toHaveLength(2);
    calls[1]?.answer({ deleted: 0, stamped: 0 });
    await sweep.running;
    sweep.due(1_999);
    expect(calls).toHaveLength(2);
  });

  it('turns a failed sweep into a warning, never a rejection, and sweeps again later', async () => {
    const { sweep, calls, events } = sweepOf();
    sweep.due(0);
    const error = new Error('the store went away');
    calls[0]?.fail(error);
    await expect(sweep.running).resolves.toBeUndefined();
    expect(sweep.running).toBeUndefined();
    expect(events).toEqual([['warning', { message: 'age-off sweep failed', error }]]);
    sweep.due(1_000);
    expect(calls).toHaveLength(2);
  });
});
