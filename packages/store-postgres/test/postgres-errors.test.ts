import { FateError, FateErrorCode } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { rolledBack, toStoreError } from '../src/postgres-errors.js';

/** An error as node-postgres or Node gives it: a message, a code, maybe a syscall. */
function failure(code: string | number | undefined, syscall?: string): Error {
  return Object.assign(new Error(`failed with ${code}`), { code, syscall });
}

const mapped = (err: unknown) => toStoreError(err, 'read', 'at db') as FateError;

// What a failure means to the guard: STORE_CONFIG stops a start (the configuration must be
// fixed), STORE_UNAVAILABLE may be retried, a programmer's mistake passes through.
describe('postgres backend: toStoreError', () => {
  it.each([
    ['28P01', 'bad credentials'],
    ['28000', 'no such role'],
    ['3D000', 'no such database'],
    ['3F000', 'no such schema'],
    ['42501', 'no permission'],
    ['ENOTFOUND', 'no such host'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'an untrusted certificate'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'a certificate for another host'],
  ])('%s (%s) is the configuration’s', (code) => {
    const err = failure(code);
    const out = mapped(err);
    expect(out).toBeInstanceOf(FateError);
    expect(out.code).toBe(FateErrorCode.STORE_CONFIG);
    expect(out.cause).toBe(err);
    expect(out.message).toBe(`PostgreSQL store at db: read failed (${code}): failed with ${code}`);
  });

  it.each([
    ['ENOENT', 'open'],
    ['EACCES', 'open'],
  ])(
    'a file the URL names that cannot be read (%s on %s) is the configuration’s',
    (code, syscall) => {
      expect(mapped(failure(code, syscall)).code).toBe(FateErrorCode.STORE_CONFIG);
    },
  );

  it.each([
    ['ECONNREFUSED', 'connect', 'a refused connection'],
    ['ENOENT', 'connect', 'a socket not there yet'],
    ['EACCES', 'connect', 'a socket not open to us yet'],
    ['EMFILE', 'open', 'too many open files'],
    ['57P01', undefined, 'a server shutting down'],
    ['53300', undefined, 'too many connections'],
    ['40001', undefined, 'a serialization failure'],
    ['X28P01', undefined, 'a code that only contains a config class'],
  ])('%s on %s (%s) may be retried', (code, syscall, _what) => {
    expect(mapped(failure(code, syscall)).code).toBe(FateErrorCode.STORE_UNAVAILABLE);
  });

  it('says no code when there is none, and treats it as unavailable', () => {
    const out = mapped(failure(undefined));
    expect(out.code).toBe(FateErrorCode.STORE_UNAVAILABLE);
    expect(out.message).toBe('PostgreSQL store at db: read failed: failed with undefined');
    expect(mapped(failure(28)).message).toBe('PostgreSQL store at db: read failed: failed with 28');
    expect(mapped(failure(28)).code).toBe(FateErrorCode.STORE_UNAVAILABLE);
  });

  it('passes a FateError, a TypeError, a RangeError and a non-Error through unchanged', () => {
    for (const err of [
      new FateError(FateErrorCode.CLOSED, 'closed'),
      new TypeError('bad argument'),
      new RangeError('out of range'),
      'a string',
    ]) {
      expect(toStoreError(err, 'read', 'at db')).toBe(err);
    }
  });
});

describe('postgres backend: rolledBack, a batch that applied nothing', () => {
  it.each([
    ['22021', 'a byte text cannot hold'],
    ['40P01', 'a deadlock'],
    ['40001', 'a serialization failure'],
    ['23505', 'a unique violation'],
    ['42601', 'a syntax error'],
  ])('%s (%s): the statement rolled back, each call may go again alone', (code) => {
    expect(rolledBack(failure(code))).toBe(true);
  });

  it.each([
    ['08006', 'a connection failure'],
    ['57P01', 'a server shutting down'],
    ['57014', 'a cancelled statement'],
    ['53300', 'too many connections'],
    ['ECONNRESET', 'a socket reset'],
    [undefined, 'no code (a lost connection, a client timeout)'],
  ] as Array<[string | undefined, string]>)(
    '%s (%s): the outcome is unknown, no call goes again',
    (code) => {
      expect(rolledBack(failure(code))).toBe(false);
    },
  );
});
