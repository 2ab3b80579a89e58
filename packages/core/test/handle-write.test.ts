// The fenced write of a handle after a lost reply (`handle-write.ts`): when a repeat of a
// write that ends the reservation answers "not applied", what is stored decides whether our
// first attempt applied it (the reservation ended by us) or someone cleared us first.
import { describe, expect, it, vi } from 'vitest';
import type { BackendCaller } from '../src/guard/backend-caller.js';
import type { Draft } from '../src/guard/commit-draft.js';
import type { FinishClaim } from '../src/guard/finish-claims.js';
import { endedByUs, sendWrite } from '../src/guard/handle-write.js';
import { retryTelling } from '../src/guard/retry.js';
import {
  FateError,
  FateErrorCode,
  type FateId,
  newFateId,
  type RecordWrite,
  type StoredRecord,
} from '../src/index.js';

const ours = { lockId: 'engine-1', uuid: 'u-1' };
const draft: Draft = { status: 'SUCCESSFUL', stackText: '[]', infoText: '{"a":1}', deferMs: 0 };
/** The record as our releasing write leaves it. */
const asWeLeftIt: StoredRecord = {
  status: 'SUCCESSFUL',
  stack: '[]',
  info: '{"a":1}',
  reservation: null,
  deferUntil: 0,
};
const lost = () => new FateError(FateErrorCode.STORE_UNAVAILABLE, 'the reply was lost');

/** A backend whose write answers `answers` in turn (an Error is thrown), and whose read gives `stored`. */
function backend(answers: (boolean | Error)[], stored: StoredRecord | undefined) {
  const calls: string[] = [];
  const write = async () => {
    calls.push('write');
    const next = answers.shift();
    if (next instanceof Error) throw next;
    return next ?? false;
  };
  const caller = {
    retriedTelling: (_what: string, _fn: unknown) => retryTelling(write),
    retried: async () => {
      calls.push('read');
      return stored;
    },
  } as unknown as BackendCaller;
  return { caller, calls, write };
}

const release: RecordWrite = { status: 'SUCCESSFUL', release: { deferMs: 0 } };
const remove: RecordWrite = { delete: true };
const keep: RecordWrite = { status: 'IN_PROGRESS' };

describe('sendWrite', () => {
  const id: FateId = newFateId();

  it('answers as the store did when the first reply came, reading nothing', async () => {
    for (const answer of [true, false]) {
      const b = backend([answer], asWeLeftIt);
      expect(await sendWrite(b.caller, id, ours, release, draft)).toBe(answer);
      expect(b.calls).toEqual(['write']);
    }
  });

  it('takes a repeated write that keeps the reservation as it answers: it is absolute', async () => {
    const b = backend([lost(), false], asWeLeftIt);
    expect(await sendWrite(b.caller, id, ours, keep, draft)).toBe(false);
    expect(b.calls).toEqual(['write', 'write']);
    const yes = backend([lost(), true], undefined);
    expect(await sendWrite(yes.caller, id, ours, keep, draft)).toBe(true);
    expect(yes.calls).toEqual(['write', 'write']);
  });

  it('reads back after a repeated release answered no: applied when stored as the draft left it', async () => {
    const applied = backend([lost(), false], asWeLeftIt);
    expect(await sendWrite(applied.caller, id, ours, release, draft)).toBe(true);
    expect(applied.calls).toEqual(['write', 'write', 'read']);
    const clearedFirst = backend([lost(), false], { ...asWeLeftIt, status: 'IN_PROGRESS' });
    expect(await sendWrite(clearedFirst.caller, id, ours, release, draft)).toBe(false);
  });

  it('reads back after a repeated delete answered no: applied when the record is gone', async () => {
    const gone = backend([lost(), false], undefined);
    expect(await sendWrite(gone.caller, id, ours, remove, draft)).toBe(true);
    const there = backend([lost(), false], asWeLeftIt);
    expect(await sendWrite(there.caller, id, ours, remove, draft)).toBe(false);
    expect(there.calls).toEqual(['write', 'write', 'read']);
  });

  it('sends a write carrying a claim through the claim, judged the same way', async () => {
    const answers: (boolean | Error)[] = [lost(), false];
    const send = vi.fn(async () => {
      const next = answers.shift();
      if (next instanceof Error) throw next;
      return next ?? false;
    });
    const b = backend([], asWeLeftIt);
    const claim = { send } as unknown as FinishClaim;
    expect(await sendWrite(b.caller, id, ours, release, draft, claim)).toBe(true);
    expect(send).toHaveBeenCalledTimes(2);
    expect(send).toHaveBeenCalledWith(id, ours, release);
    expect(b.calls).toEqual(['read']); // the backend's own write is not used
  });
});

describe('endedByUs', () => {
  it('says a release applied only if nothing but the reservation differs from the draft', () => {
    expect(endedByUs(asWeLeftIt, ours, false, draft)).toBe(true);
    expect(
      endedByUs(
        { ...asWeLeftIt, reservation: { lockId: 'other', uuid: 'u-2' } },
        ours,
        false,
        draft,
      ),
    ).toBe(true);
    for (const other of [
      undefined,
      { ...asWeLeftIt, reservation: ours }, // still ours: the release did not apply
      { ...asWeLeftIt, status: 'FAILED' },
      { ...asWeLeftIt, stack: '[{"type":"s","state":{}}]' },
      { ...asWeLeftIt, info: '{"a":2}' },
    ]) {
      expect(endedByUs(other, ours, false, draft), JSON.stringify(other)).toBe(false);
    }
  });

  it('says a delete applied only if the record is gone', () => {
    expect(endedByUs(undefined, ours, true, draft)).toBe(true);
    expect(endedByUs(asWeLeftIt, ours, true, draft)).toBe(false);
  });
});
