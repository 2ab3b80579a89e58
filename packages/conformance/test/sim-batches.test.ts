import { afterEach, describe, expect, it, vi } from 'vitest';
import { FaultSchedule } from '../src/simulation/faults.js';
import { History } from '../src/simulation/history.js';
import { SimProcess } from '../src/simulation/process.js';
import { SimCalls } from '../src/simulation/sim-calls.js';

afterEach(() => {
  vi.useRealTimers();
});

/** One client's calls under a plan whose first decision fails a call; virtual time. */
function client(batches: boolean) {
  vi.useFakeTimers({ toFake: ['performance', 'setTimeout', 'Date'] });
  const history = new History(performance.now());
  const calls = new SimCalls({
    process: new SimProcess('e0'),
    client: 'e0',
    history,
    faults: new FaultSchedule([{ gap: 0, delayMs: 0, fault: 'fail' }]),
    hangMs: 1_000,
    ...(batches ? { batches: true } : {}),
  });
  const call = (op: string) => calls.run(op, async () => op);
  return { call, history };
}

describe('simulation: calls of one batch share their fault (batchScenarios)', () => {
  it('fails every write of one instant together when batched, and only the first when not', async () => {
    const batched = client(true);
    const together = await Promise.allSettled([batched.call('write'), batched.call('write')]);
    expect(together.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    // another kind, or the next instant, is another batch: the plan has no fault left
    await expect(batched.call('tryReserve')).resolves.toBe('tryReserve');
    vi.advanceTimersByTime(1);
    await expect(batched.call('write')).resolves.toBe('write');

    const alone = client(false);
    const each = await Promise.allSettled([alone.call('write'), alone.call('write')]);
    expect(each.map((s) => s.status)).toEqual(['rejected', 'fulfilled']);
  });

  it('aims the plan at the batched kinds alone: other calls go untouched and leave the fault to them', async () => {
    const batched = client(true);
    const reads = await Promise.allSettled([batched.call('read'), batched.call('heartbeat')]);
    expect(reads.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled']);
    await expect(batched.call('write')).rejects.toThrow('simulated fault');
  });
});
