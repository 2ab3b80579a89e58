// Seeding (`seeding.ts`) over a stub backend: a request checked and encoded exactly, the
// insert of one or many, and after a lost reply whether a taken id was our own first attempt.
import { describe, expect, it } from 'vitest';
import type { BackendCaller } from '../src/guard/backend-caller.js';
import { retryTelling } from '../src/guard/retry.js';
import {
  createNew,
  insertedByUs,
  insertSeeds,
  type PreparedSeed,
  prepareSeed,
} from '../src/guard/seeding.js';
import {
  FateError,
  FateErrorCode,
  keyedFateId,
  type SeedRequest,
  type StoredRecord,
} from '../src/index.js';
import { code } from './test-steps.js';

const step = { type: 's', state: { n: 1 } };
const lost = () => new FateError(FateErrorCode.STORE_UNAVAILABLE, 'the reply was lost');

/** A backend whose inserts answer `answers` in turn (an Error is thrown) and reads give `stored`. */
function backend(answers: (boolean[] | Error)[], stored?: StoredRecord) {
  const calls: string[] = [];
  const answer = async (what: string) => {
    calls.push(what);
    const next = answers.shift();
    if (next instanceof Error) throw next;
    return next ?? [false];
  };
  const b = {
    insert: async () => (await answer('insert'))[0],
    insertMany: async () => answer('insertMany'),
    read: async () => {
      calls.push('read');
      return stored;
    },
  };
  const caller = {
    retriedTelling: (_what: string, fn: (x: typeof b) => Promise<unknown>) =>
      retryTelling(() => fn(b)),
    retried: (_what: string, fn: (x: typeof b) => Promise<unknown>) => fn(b),
  } as unknown as BackendCaller;
  return { caller, calls };
}

const keyed = (created = 1_000): PreparedSeed =>
  prepareSeed({ step, opName: 'op', key: { type: 'order', key: '42' } }, created);
const storedAs = (seed: PreparedSeed, over: Partial<StoredRecord> = {}): StoredRecord => ({
  status: seed.record.status,
  stack: seed.record.stack,
  info: seed.record.info,
  reservation: null,
  deferUntil: 0,
  ...over,
});

describe('prepareSeed', () => {
  it('encodes exactly what was asked, and nothing it was not', () => {
    const plain = prepareSeed({ step, opName: 'op' }, 500);
    expect(plain.keyed).toBe(false);
    expect(plain.record).toStrictEqual({
      status: 'SUBMITTED',
      stack: JSON.stringify([step]),
      info: JSON.stringify({ opName: 'op', created: 500 }),
      op: 'op',
    });
    const full = prepareSeed(
      {
        step,
        opName: 'op',
        held: true,
        autoClean: true,
        retainMs: 0,
        delayMs: 10.5,
        priority: 3,
        key: { type: 'order', key: '42' },
        internal: { parent: 'p' } as never,
      },
      500,
    );
    expect(full.id).toBe(keyedFateId({ type: 'order', key: '42' }));
    expect(full.keyed).toBe(true);
    // a keyed seed's random token, 8 bytes in hex, a new one each time
    expect(full.token).toMatch(/^[0-9a-f]{16}$/);
    expect(prepareSeed({ step, opName: 'op', key: { type: 'o', key: '1' } }, 500).token).not.toBe(
      prepareSeed({ step, opName: 'op', key: { type: 'o', key: '1' } }, 500).token,
    );
    expect(plain.token).toBeUndefined();
    expect(full.record).toStrictEqual({
      status: 'NEW',
      stack: JSON.stringify([step]),
      info: JSON.stringify({
        opName: 'op',
        created: 500,
        autoClean: true,
        retainMs: 0,
        key: { type: 'order', key: '42' },
        seedToken: full.token,
        internal: { parent: 'p' },
      }),
      op: 'op',
      deferMs: 11,
      priority: 3,
    });
    // a key is stored as its type and key, whatever else the object carries
    const extra = { type: 'order', key: '42', note: 'not stored' } as never;
    expect(JSON.parse(prepareSeed({ step, opName: 'op', key: extra }, 1).record.info).key).toEqual({
      type: 'order',
      key: '42',
    });
    expect(
      JSON.parse(prepareSeed({ step, opName: 'op', autoClean: false }, 1).record.info),
    ).not.toHaveProperty('autoClean');
  });

  it('refuses each malformed field, saying what it got', () => {
    for (const bad of [
      { step, opName: '' },
      { step, opName: 7 },
      { step, opName: 'a\u0000b' },
      { step, opName: 'op', autoClean: 'yes' },
      { step, opName: 'op', retainMs: -1 },
      { step, opName: 'op', retainMs: 1.5 },
      { step, opName: 'op', held: 1 },
    ]) {
      expect(
        code(() => prepareSeed(bad as unknown as SeedRequest, 0)),
        JSON.stringify(bad),
      ).toBe('FATE_INVALID_ARGUMENT');
    }
    const said = (value: unknown) => {
      try {
        prepareSeed(value as SeedRequest, 0);
      } catch (err) {
        return (err as Error).message;
      }
      return '';
    };
    expect(said(null)).toBe('seed needs a request object, got null');
    expect(said([])).toBe('seed needs a request object, got an array');
    expect(said('op')).toBe('seed needs a request object, got the string "op"');
    expect(said(5)).toBe('seed needs a request object, got number');
  });
});

describe('inserting seeds', () => {
  it('inserts one with insert and more with insertMany, in one call, reading nothing', async () => {
    const one = backend([[true]]);
    expect(await insertSeeds(one.caller, [keyed()])).toEqual([{ id: keyed().id, created: true }]);
    expect(one.calls).toEqual(['insert']);
    const two = [prepareSeed({ step, opName: 'op' }, 1), prepareSeed({ step, opName: 'op' }, 1)];
    const many = backend([[true, false]]);
    const results = await insertSeeds(many.caller, two);
    expect(results.map((r) => r.created)).toEqual([true, false]);
    expect(many.calls).toEqual(['insertMany']);
    const none = backend([]);
    expect(await insertSeeds(none.caller, [])).toEqual([]);
    expect(none.calls).toEqual([]);
  });

  it('reads back only the ids found taken on a repeat, and judges each', async () => {
    const seed = keyed(1_000);
    const ours = backend([lost(), [false]], storedAs(seed, { status: 'SUCCESSFUL' }));
    expect(await insertSeeds(ours.caller, [seed])).toEqual([{ id: seed.id, created: true }]);
    expect(ours.calls).toEqual(['insert', 'insert', 'read']);
    const theirs = backend([lost(), [false]], storedAs(keyed(999)));
    expect(await insertSeeds(theirs.caller, [seed])).toEqual([{ id: seed.id, created: false }]);
    const applied = backend([lost(), [true]]);
    expect(await insertSeeds(applied.caller, [seed])).toEqual([{ id: seed.id, created: true }]);
    expect(applied.calls).toEqual(['insert', 'insert']);
  });

  it('makes a fresh id when a random one was taken, but keeps one its repeat found taken', async () => {
    const record = prepareSeed({ step, opName: 'op' }, 1).record;
    const collided = backend([[false], [true]]);
    expect(await createNew(collided.caller, record)).toMatch(/^[0-9a-f-]{36}$/);
    expect(collided.calls).toEqual(['insert', 'insert']);
    const repeated = backend([lost(), [false]]);
    await createNew(repeated.caller, record);
    expect(repeated.calls).toEqual(['insert', 'insert']);
  });
});

describe('insertedByUs', () => {
  it('takes a random id as ours, and a keyed one only when it carries our seed token', () => {
    expect(insertedByUs(prepareSeed({ step, opName: 'op' }, 1), undefined)).toBe(true);
    const seed = keyed(1_000);
    expect(insertedByUs(seed, undefined)).toBe(false);
    expect(insertedByUs(seed, storedAs(seed))).toBe(true);
    // another seed of the same key, stamped in the same millisecond with the same step
    expect(insertedByUs(seed, storedAs(keyed(1_000)))).toBe(false);
    expect(insertedByUs(keyed(1_000), storedAs(seed))).toBe(false);
  });

  it('judges a keyed record stored without a token (an older version) by its stamp and first step', () => {
    const seed = keyed(1_000);
    const untokened = (s: PreparedSeed, over: Partial<StoredRecord> = {}) => {
      const { seedToken: _, ...info } = JSON.parse(s.record.info);
      return storedAs(s, { info: JSON.stringify(info), ...over });
    };
    expect(insertedByUs(seed, untokened(seed))).toBe(true);
    // moved on since: a later step pushed, status changed
    const later = JSON.stringify([step, { type: 't', state: {} }]);
    expect(insertedByUs(seed, untokened(seed, { stack: later, status: 'IN_PROGRESS' }))).toBe(true);
    expect(insertedByUs(seed, untokened(keyed(1_001)))).toBe(false);
    const otherStep = JSON.stringify([{ type: 's', state: { n: 2 } }]);
    expect(insertedByUs(seed, untokened(seed, { stack: otherStep }))).toBe(false);
    expect(insertedByUs(seed, storedAs(seed, { info: '{broken' }))).toBe(false);
  });
});
