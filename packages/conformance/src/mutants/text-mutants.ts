import type { NewRecord, RecordWrite, StoreBackend } from '@fate/core';
import { forwarding } from './forwarding.js';
import type { BackendMutant } from './mutant.js';

type Mangle = (text: string) => string;

/** A store that changes the text fields it is given: stack, info and op (as a column type would). */
function mangling(inner: StoreBackend, mangle: Mangle): StoreBackend {
  const record = (r: NewRecord): NewRecord => ({
    ...r,
    stack: mangle(r.stack),
    info: mangle(r.info),
    op: mangle(r.op),
  });
  const change = (c: RecordWrite): RecordWrite => ({
    ...c,
    ...(c.stack !== undefined ? { stack: mangle(c.stack) } : {}),
    ...(c.info !== undefined ? { info: mangle(c.info) } : {}),
  });
  return forwarding(inner, {
    insert: (id, r) => inner.insert(id, record(r)),
    insertMany: (records) =>
      inner.insertMany(records.map(({ id, record: r }) => ({ id, record: record(r) }))),
    write: (id, r, c) => inner.write(id, r, change(c)),
  });
}

const MIB = 1024 * 1024;

/** Byte-exact round trips of every text field (promises 1, 2). */
export const textMutants: readonly BackendMutant[] = [
  {
    name: 'text-trimmed',
    promise: 1,
    breaks: 'stack, info and op are stored with surrounding whitespace trimmed',
    wrap: (b) => mangling(b, (t) => t.trim()),
  },
  {
    name: 'text-crlf-to-lf',
    promise: 1,
    breaks: 'stack, info and op are stored with CR LF turned into LF',
    wrap: (b) => mangling(b, (t) => t.replaceAll('\r\n', '\n')),
  },
  {
    name: 'text-astral-replaced',
    promise: 1,
    breaks: 'characters outside the BMP are stored as U+FFFD (a 3-byte utf8 column)',
    wrap: (b) => mangling(b, (t) => t.replace(/[\u{10000}-\u{10FFFF}]/gu, '\uFFFD')),
  },
  {
    name: 'text-nfc-normalized',
    promise: 1,
    breaks: 'stack, info and op are stored NFC-normalized',
    wrap: (b) => mangling(b, (t) => t.normalize('NFC')),
  },
  {
    name: 'text-truncated-1mib',
    promise: 1,
    breaks: 'stack and info are stored cut to their first MiB',
    wrap: (b) => mangling(b, (t) => (t.length > MIB ? t.slice(0, MIB) : t)),
  },
  {
    name: 'op-dropped',
    promise: 2,
    breaks: "the op name is not kept: every scan says ''",
    wrap: (inner) =>
      forwarding(inner, {
        insert: (id, r) => inner.insert(id, { ...r, op: '' }),
        insertMany: (records) =>
          inner.insertMany(
            records.map(({ id, record }) => ({ id, record: { ...record, op: '' } })),
          ),
      }),
  },
];
