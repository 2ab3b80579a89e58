// Step timeouts (`step-timeout.ts`) in virtual time: the signal is aborted when the time
// passes, the attempt fails only once the call settled, and a call that ignores its signal
// is reported after the grace, never let go of.

import { getEventListeners } from 'node:events';
import { FateErrorCode, type JsonValue, OVERDUE_GRACE_MS, type Repo } from '@fate/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  callWithin as callWithinSrc,
  MAX_STEP_TIMEOUT_MS,
  stepTimeoutMs,
} from '../src/engine/step-timeout.js';

/** The unit from source, given a step typed by the built package (the same shape). */
const callWithin = <T>(
  repo: Repo<never>,
  signal: AbortSignal,
  run: Parameters<typeof callWithinSrc<T>>[2],
  report: Parameters<typeof callWithinSrc<T>>[3],
) => callWithinSrc(repo as never, signal, run, report);

const step = (timeoutMs?: number): Repo<never> => ({
  type: 'slow',
  ...(timeoutMs === undefined ? {} : { timeoutMs }),
  isReady: () => 0,
  call: () => undefined,
  undo: () => undefined,
  state: (): JsonValue => ({}),
});

/** A call that settles only when told to, recording what its signal did. */
function pending() {
  let settle!: (v: string) => void;
  let fail!: (e: unknown) => void;
  const done = new Promise<string>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  return { done, settle, fail };
}

describe('step timeouts', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs a step without timeoutMs with the run signal itself', async () => {
    const run = new AbortController();
    const seen: AbortSignal[] = [];
    const report = { overdue: vi.fn() };
    const value = await callWithin(step(), run.signal, (c) => seen.push(c.signal), report);
    expect(value).toBe(1);
    expect(seen[0]).toBe(run.signal);
  });

  it('aborts the signal when the time passes and fails the attempt once the call gave up', async () => {
    const call = pending();
    let signal: AbortSignal | undefined;
    const report = { overdue: vi.fn() };
    const attempt = callWithin(
      step(500),
      new AbortController().signal,
      (c) => {
        signal = c.signal;
        c.signal.addEventListener('abort', () => call.fail(new Error('gave up')));
        return call.done;
      },
      report,
    );
    const outcome = attempt.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(499);
    expect(signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(signal?.aborted).toBe(true);
    const err = (await outcome) as { code?: string; cause?: Error };
    expect(err.code).toBe(FateErrorCode.STEP_TIMEOUT);
    expect(err.cause?.message).toBe('gave up');
    expect(report.overdue).not.toHaveBeenCalled();
  });

  it('fails an attempt whose call returned after its timeout', async () => {
    const call = pending();
    const attempt = callWithin(step(100), new AbortController().signal, () => call.done, {
      overdue: () => undefined,
    });
    const outcome = attempt.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(150);
    call.settle('late');
    const err = (await outcome) as Error & { code?: string };
    expect(err.code).toBe(FateErrorCode.STEP_TIMEOUT);
    expect('cause' in err).toBe(false); // it threw nothing: no cause, not an undefined one
  });

  it('waits for a call that ignores its signal, reporting it once after the grace', async () => {
    const call = pending();
    const report = { overdue: vi.fn() };
    let settled = false;
    const attempt = callWithin(step(100), new AbortController().signal, () => call.done, report);
    attempt
      .catch(() => undefined)
      .finally(() => {
        settled = true;
      });
    await vi.advanceTimersByTimeAsync(100 + OVERDUE_GRACE_MS - 1);
    expect(report.overdue).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(report.overdue).toHaveBeenCalledTimes(1);
    expect(report.overdue.mock.calls[0]?.[1]).toMatch(/ignores its signal/);
    await vi.advanceTimersByTimeAsync(60_000);
    // still running: the attempt is not over, so nothing may run it again meanwhile
    expect(settled).toBe(false);
    expect(report.overdue).toHaveBeenCalledTimes(1);
    call.settle('at last');
    await expect(attempt).rejects.toMatchObject({ code: FateErrorCode.STEP_TIMEOUT });
  });

  it('passes the run signal on, and an abort by it is no timeout', async () => {
    const run = new AbortController();
    const call = pending();
    let signal: AbortSignal | undefined;
    const attempt = callWithin(
      step(1_000),
      run.signal,
      (c) => {
        signal = c.signal;
        c.signal.addEventListener('abort', () => call.fail(c.signal.reason));
        return call.done;
      },
      { overdue: () => undefined },
    );
    run.abort(new Error('shutdown'));
    await expect(attempt).rejects.toThrow('shutdown');
    expect(signal?.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(5_000); // its timer was cleared: nothing fires late
  });

  it('answers a call that ends in time as it ended, and clears its timer', async () => {
    const attempt = callWithin(step(1_000), new AbortController().signal, async () => 'ok', {
      overdue: () => undefined,
    });
    await expect(attempt).resolves.toBe('ok');
    expect(vi.getTimerCount()).toBe(0);
  });

  it.each([0, -1, Number.NaN, 25 * 60 * 60_000])(
    'refuses timeoutMs %s as a mistake of the step',
    async (ms) => {
      const attempt = callWithin(step(ms), new AbortController().signal, () => 1, {
        overdue: () => undefined,
      });
      await expect(attempt).rejects.toMatchObject({ code: FateErrorCode.INVALID_ARGUMENT });
    },
  );

  it('gives a call begun after the run signal aborted an aborted signal, and no timeout', async () => {
    const run = new AbortController();
    run.abort(new Error('shutdown'));
    const report = { overdue: vi.fn() };
    let reason: unknown;
    const call = pending();
    const attempt = callWithin(
      step(100),
      run.signal,
      (c) => {
        reason = c.signal.aborted ? c.signal.reason : 'not aborted';
        return call.done;
      },
      report,
    );
    expect(reason).toBe(run.signal.reason);
    // the call ignores it and ends well after its timeout: what it returned stands
    await vi.advanceTimersByTimeAsync(2_000);
    call.settle('ended');
    await expect(attempt).resolves.toBe('ended');
    expect(report.overdue).not.toHaveBeenCalled();
  });

  it('does not call a run its timeout once the run signal aborted it first', async () => {
    const run = new AbortController();
    const call = pending();
    const report = { overdue: vi.fn() };
    const attempt = callWithin(step(100), run.signal, () => call.done, report);
    await vi.advanceTimersByTimeAsync(50);
    run.abort(new Error('shutdown'));
    await vi.advanceTimersByTimeAsync(2_000); // past the timeout and its grace: ignored still
    call.settle('ended');
    await expect(attempt).resolves.toBe('ended');
    expect(report.overdue).not.toHaveBeenCalled();
  });

  it('reports no overdue call once the late call ended within the grace', async () => {
    const call = pending();
    const report = { overdue: vi.fn() };
    const attempt = callWithin(step(100), new AbortController().signal, () => call.done, report);
    void attempt.catch(() => undefined);
    await vi.advanceTimersByTimeAsync(100 + OVERDUE_GRACE_MS / 2);
    call.settle('late');
    await expect(attempt).rejects.toMatchObject({ code: FateErrorCode.STEP_TIMEOUT });
    await vi.advanceTimersByTimeAsync(OVERDUE_GRACE_MS * 2);
    expect(report.overdue).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('leaves no listener on the run signal, which outlives the call', async () => {
    const run = new AbortController();
    for (const ms of [100, 200]) {
      await callWithin(step(ms), run.signal, async () => 'ok', { overdue: () => undefined });
    }
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
  });

  it('takes a timeout of a day exactly, and none at all', () => {
    expect(MAX_STEP_TIMEOUT_MS).toBe(86_400_000); // the README's "up to a day"
    expect(stepTimeoutMs(step(MAX_STEP_TIMEOUT_MS) as never)).toBe(MAX_STEP_TIMEOUT_MS);
    expect(stepTimeoutMs(step(1) as never)).toBe(1);
    expect(stepTimeoutMs(step() as never)).toBeUndefined();
  });
});
