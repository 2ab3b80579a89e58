// A commit's draft and its one backend write (`commit-draft.ts`): the order rules of a
// commit, only what changed is written, and the age-off entry a finishing write carries.
import { describe, expect, it } from 'vitest';
import { type DraftBase, draftChanges, draftWrite } from '../src/guard/commit-draft.js';
import { newFateId, type TxChange } from '../src/index.js';
import { code } from './test-steps.js';

const step = { type: 's', state: {} };
const base = (over: Partial<DraftBase> = {}): DraftBase => ({
  id: newFateId(),
  status: 'IN_PROGRESS',
  stackText: JSON.stringify([step]),
  infoText: '{}',
  ...over,
});
const write = (b: DraftBase, changes: TxChange[]) => draftWrite(b, draftChanges(b, changes), 1e6);

describe('a commit draft', () => {
  it('refuses any change after the one that ends the reservation, and what is no change', () => {
    for (const changes of [
      [{ op: 'unreserve' }, { op: 'setStatus', status: 'FAILED' }],
      [{ op: 'forceDelete' }, { op: 'pop' }],
      [null],
      [{ op: 'bogus' }],
      [{ op: 'setInfo', key: 'returnValue', value: new Date(0) }], // JSON would change it
    ] as TxChange[][]) {
      expect(
        code(() => draftChanges(base(), changes)),
        JSON.stringify(changes),
      ).toBe('FATE_INVALID_ARGUMENT');
    }
  });

  it('names the statuses an operation is allowed in when it is not', () => {
    expect(() => draftChanges(base({ status: 'SUBMITTED' }), [{ op: 'pop' }])).toThrow(
      'pop is not allowed in status SUBMITTED (allowed: FAILED_IN_PROGRESS, SUCCESSFUL)',
    );
  });

  it('writes only what changed, and the release with its deferral', () => {
    const b = base();
    expect(write(b, [{ op: 'unreserve', deferMs: 2.5 }])).toStrictEqual({
      release: { deferMs: 3 },
    });
    expect(write(b, [{ op: 'setInfo', key: 'opName', value: 'op' }])).toStrictEqual({
      info: '{"opName":"op"}',
    });
    expect(write(b, [{ op: 'push', step }])).toStrictEqual({ stack: JSON.stringify([step, step]) });
    expect(write(b, [{ op: 'setStatus', status: 'IN_PROGRESS' }])).toStrictEqual({});
    expect(write(base({ status: 'SUCCESSFUL' }), [{ op: 'delete' }])).toStrictEqual({
      delete: true,
    });
  });
});

describe('the age-off entry of a write', () => {
  it('carries the stamp and retention of a finishing write, and nothing else', () => {
    const b = base();
    const finishing = write(b, [
      { op: 'setStatus', status: 'SUCCESSFUL' },
      { op: 'setInfo', key: 'ageOff', value: 1_000 },
      { op: 'setInfo', key: 'retainMs', value: 60_000 },
      { op: 'unreserve' },
    ]);
    expect(finishing.finished).toStrictEqual({ at: 1_000, retainMs: 60_000 });
    // no stamp yet (the store's clock will stamp it): an entry without one
    const unstamped = write(b, [{ op: 'setStatus', status: 'FAILED' }]);
    expect(unstamped.finished).toStrictEqual({});
  });

  it('takes no stamp or retention that is not a number', () => {
    const b = base({ infoText: '{"ageOff":"soon","retainMs":"long"}' });
    expect(write(b, [{ op: 'setStatus', status: 'SUCCESSFUL' }]).finished).toStrictEqual({});
  });

  it('indexes a finished record whose info does not decode, by the store clock', () => {
    const b = base({ infoText: '{not json' });
    expect(write(b, [{ op: 'setStatus', status: 'SUCCESSFUL' }]).finished).toStrictEqual({});
    expect(write(b, [{ op: 'setStatus', status: 'SUCCESSFUL' }])).toHaveProperty('finished');
  });

  it('re-indexes a finished record only when its status or info changed', () => {
    const b = base({ status: 'SUCCESSFUL', infoText: '{"ageOff":5}' });
    expect(write(b, [{ op: 'pop' }])).not.toHaveProperty('finished');
    expect(write(b, [{ op: 'setInfo', key: 'ageOff', value: 9 }]).finished).toStrictEqual({
      at: 9,
    });
  });

  it('takes a record out of the index when it moves to an unfinished status', () => {
    const b = base({ status: 'SUCCESSFUL' });
    expect(write(b, [{ op: 'setStatus', status: 'FAILED_IN_PROGRESS' }]).finished).toBeNull();
    expect(write(base(), [{ op: 'push', step }])).not.toHaveProperty('finished');
  });
});
