// What is recorded of an error (toTxError) and of the errors of a rollback (recordUndoError):
// every field, each bound exactly, and what happens when the record cannot be read or written.
import { describe, expect, it } from 'vitest';
import { toTxError } from '../src/engine/tx-error.js';
import { recordUndoError } from '../src/engine/undo-errors.js';
import { FateError, FateErrorCode, type FateStore, type TxError } from '../src/index.js';

describe('toTxError', () => {
  it('keeps message, name, code and stack, each within its bound', () => {
    const err = Object.assign(new TypeError('bad input'), { code: 'E_BAD' });
    expect(toTxError(err)).toEqual({
      message: 'bad input',
      name: 'TypeError',
      code: 'E_BAD',
      stack: err.stack,
    });
    // a number code is kept as a string; any other code is left out
    expect(toTxError(Object.assign(new Error('n'), { code: 42 })).code).toBe('42');
    expect(toTxError(Object.assign(new Error('o'), { code: { deep: 1 } }))).not.toHaveProperty(
      'code',
    );
    const bare = new Error('no stack');
    bare.stack = undefined;
    expect(toTxError(bare)).toEqual({ message: 'no stack', name: 'Error' });
  });

  it('cuts a message at 2,000 characters and a stack at 8,000, saying how much was cut', () => {
    expect(toTxError(new Error('m'.repeat(2_000))).message).toBe('m'.repeat(2_000));
    expect(toTxError(new Error('m'.repeat(2_001))).message).toBe(`${'m'.repeat(2_000)}… (1 more)`);
    const long = new Error('s');
    long.stack = 's'.repeat(9_000);
    expect(toTxError(long).stack).toBe(`${'s'.repeat(8_000)}… (1000 more)`);
    long.stack = 's'.repeat(8_000);
    expect(toTxError(long).stack).toBe('s'.repeat(8_000));
  });

  it('records what is thrown that is no Error as its text, cut the same way', () => {
    expect(toTxError('plain')).toEqual({ message: 'plain' });
    expect(toTxError(undefined)).toEqual({ message: 'undefined' });
    expect(toTxError({ toString: () => 'q'.repeat(2_010) })).toEqual({
      message: `${'q'.repeat(2_000)}… (10 more)`,
    });
  });

  it('follows the cause chain three levels deep, whatever the causes are', () => {
    const chain = new Error('0', { cause: new Error('1', { cause: 'two' }) });
    const recorded = toTxError(chain);
    expect(recorded.cause?.message).toBe('1');
    expect(recorded.cause?.cause).toEqual({ message: 'two' });
    const causes = (e: TxError | undefined): string[] => (e ? [e.message, ...causes(e.cause)] : []);
    let deep: unknown = new Error('4');
    for (const m of ['3', '2', '1', '0']) deep = new Error(m, { cause: deep });
    expect(causes(toTxError(deep))).toEqual(['0', '1', '2', '3']);
    expect(toTxError(new Error('x', { cause: null })).cause).toEqual({ message: 'null' });
  });
});

/** A handle holding one `error` info, or one that fails to read or to write it. */
function holder(opts: { error?: TxError; read?: Error; write?: Error } = {}) {
  let error = opts.error;
  const fate = {
    getInfo: async () => {
      if (opts.read) throw opts.read;
      return error;
    },
    setInfo: async (_key: string, value: TxError) => {
      if (opts.write) throw opts.write;
      error = value;
    },
  } as unknown as FateStore;
  return { fate, recorded: () => error };
}

describe('recordUndoError', () => {
  it('adds each undo error to the recorded error, keeping 20 at most', async () => {
    const h = holder({ error: { message: 'the step failed', code: 'E1' } });
    for (let i = 0; i < 25; i++) await recordUndoError(h.fate, new Error(`undo ${i}`));
    const recorded = h.recorded();
    expect(recorded?.message).toBe('the step failed');
    expect(recorded?.code).toBe('E1');
    expect(recorded?.undoErrors?.map((e) => e.message)).toEqual(
      Array.from({ length: 20 }, (_, i) => `undo ${i}`),
    );
  });

  it('starts a record of its own when there is none, or it cannot be read', async () => {
    const none = holder();
    await recordUndoError(none.fate, new Error('first'));
    expect(none.recorded()).toEqual({
      message: 'rolled back',
      undoErrors: [expect.objectContaining({ message: 'first' })],
    });
    const unreadable = holder({ error: { message: 'old' }, read: new Error('garbled') });
    await recordUndoError(unreadable.fate, 'second');
    expect(unreadable.recorded()).toEqual({
      message: 'rolled back',
      undoErrors: [{ message: 'second' }],
    });
  });

  it('gives up the entry when there is no room, but not when the store is away', async () => {
    const full = holder({ write: new FateError(FateErrorCode.PAYLOAD_TOO_LARGE, 'no room') });
    await expect(recordUndoError(full.fate, new Error('lost'))).resolves.toBeUndefined();
    const away = holder({ write: new FateError(FateErrorCode.STORE_UNAVAILABLE, 'away') });
    await expect(recordUndoError(away.fate, new Error('kept'))).rejects.toMatchObject({
      code: 'FATE_STORE_UNAVAILABLE',
    });
  });
});
