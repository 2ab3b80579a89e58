// An app can end up with two copies of @fate/core (a backend that resolved its own). Errors
// must still be recognised across them, or the store guard re-wraps a backend's FateError as
// FATE_STORE_UNAVAILABLE. The second copy is the built errors module loaded again under
// another URL: a fresh module instance with its own FateError class.
import { createFatesStore, FateError, FateErrorCode, isFateError, MemoryBackend } from '@fate/core';
import { beforeAll, describe, expect, it } from 'vitest';

type ErrorsModule = Pick<typeof import('@fate/core'), 'FateError' | 'isFateError'>;

let copy: ErrorsModule;

beforeAll(async () => {
  const url = new URL('../dist/errors.js', import.meta.url);
  url.searchParams.set('copy', 'second');
  copy = (await import(url.href)) as ErrorsModule;
});

describe('FateError across copies of @fate/core', () => {
  it('really is a second class', () => {
    expect(copy.FateError).not.toBe(FateError);
  });

  it('recognises an error of the other copy, both ways', () => {
    const theirs = new copy.FateError(FateErrorCode.PAYLOAD_TOO_LARGE, 'too big');
    const ours = new FateError(FateErrorCode.NOT_RESERVED, 'gone');
    expect(theirs instanceof FateError).toBe(true);
    expect(ours instanceof copy.FateError).toBe(true);
    expect(isFateError(theirs, FateErrorCode.PAYLOAD_TOO_LARGE)).toBe(true);
    expect(isFateError(theirs, FateErrorCode.NOT_RESERVED)).toBe(false);
    expect(copy.isFateError(ours, FateErrorCode.NOT_RESERVED)).toBe(true);
  });

  it('recognises nothing else', () => {
    const lookalike = Object.assign(new Error('x'), { code: FateErrorCode.NOT_FOUND });
    for (const value of [lookalike, new TypeError('x'), { code: 'FATE_CLOSED' }, null, 'x']) {
      expect(value instanceof FateError).toBe(false);
      expect(isFateError(value)).toBe(false);
      expect(copy.isFateError(value)).toBe(false);
    }
  });

  it('keeps the ordinary check for a subclass', () => {
    class Special extends FateError {}
    expect(new Special(FateErrorCode.TIMEOUT, 't') instanceof Special).toBe(true);
    expect(new FateError(FateErrorCode.TIMEOUT, 't') instanceof Special).toBe(false);
    expect(new Special(FateErrorCode.TIMEOUT, 't') instanceof FateError).toBe(true);
  });

  it('leaves the error itself unchanged: no extra own keys', () => {
    const err = new FateError(FateErrorCode.CLOSED, 'closed');
    expect(Reflect.ownKeys(err).filter((k) => typeof k === 'symbol')).toEqual([]);
  });

  it('lets the store guard pass a backend error of the other copy through, not re-wrapped', async () => {
    const thrown = new copy.FateError(FateErrorCode.PAYLOAD_TOO_LARGE, 'too big');
    const backend = new MemoryBackend();
    backend.open = async () => {
      throw thrown;
    };
    await expect(createFatesStore(backend)).rejects.toBe(thrown);
  });
});
