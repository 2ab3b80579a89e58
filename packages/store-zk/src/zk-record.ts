import { FateError, FateErrorCode, type Reservation, type StoredRecord } from '@fate/core';

/**
 * How a transaction is stored in its znode: one line of JSON with the small fields, then
 * the stack and info texts raw, back to back:
 *
 * ```
 * {"v":1,"status":"IN_PROGRESS","reservation":null,"deferUntil":0,"stackBytes":27}\n
 * [{"type":"a","state":{}}]{"opName":"op","created":1764460000000}
 * ```
 *
 * The texts are never escaped into JSON strings, so a record at the declared limit grows
 * only by its header line (escaping could double it), and reading one needs no parse of
 * the stack or info: the guard decodes those.
 */
interface Header {
  readonly v: 1;
  readonly status: string;
  readonly reservation: Reservation | null;
  readonly deferUntil: number;
  readonly stackBytes: number;
}

/**
 * Room kept for the header line and the request around the data (path, version, framing):
 * a header with a 128-character lock id is under 300 bytes, so 48 KiB leaves the chroot
 * path ample space. `maxRecordBytes` = `jute.maxbuffer` − this.
 */
export const ENVELOPE_RESERVE = 48 * 1024;

/** Bytes of a request besides its path and data (xid, type, lengths, version, ACL). */
const REQUEST_FRAMING = 128;

const NEWLINE = 0x0a;

/**
 * What an unreadable znode decodes to: a status no one stores, so the guard reports
 * `FATE_CORRUPT_DATA` for it and scans skip it.
 */
const UNREADABLE: StoredRecord = Object.freeze({
  status: '<unreadable record>',
  stack: '',
  info: '',
  reservation: null,
  deferUntil: 0,
});

export function encodeRecord(record: StoredRecord): Buffer {
  const header: Header = {
    v: 1,
    status: record.status,
    reservation: record.reservation
      ? { lockId: record.reservation.lockId, uuid: record.reservation.uuid }
      : null,
    deferUntil: record.deferUntil,
    stackBytes: Buffer.byteLength(record.stack),
  };
  return Buffer.concat([
    Buffer.from(`${JSON.stringify(header)}\n`),
    Buffer.from(record.stack),
    Buffer.from(record.info),
  ]);
}

/**
 * Refuses data that would make a request over the servers' `jute.maxbuffer`: the server
 * would drop the connection (a connection loss, indistinguishable from an outage) rather
 * than answer with an error, so this check is the only clear way to say "too large".
 */
export function checkRequestSize(path: string, data: Buffer, juteMaxBuffer: number): void {
  const size = data.length + Buffer.byteLength(path) + REQUEST_FRAMING;
  if (size > juteMaxBuffer) {
    throw new FateError(
      FateErrorCode.PAYLOAD_TOO_LARGE,
      `${path} would need a ${size}-byte request; ZooKeeper accepts at most ${juteMaxBuffer} (jute.maxbuffer)`,
    );
  }
}

function isHeader(value: unknown): value is Header {
  const h = value as Header;
  return (
    typeof h === 'object' &&
    h !== null &&
    h.v === 1 &&
    typeof h.status === 'string' &&
    Number.isSafeInteger(h.deferUntil) &&
    Number.isSafeInteger(h.stackBytes) &&
    h.stackBytes >= 0 &&
    (h.reservation === null ||
      (typeof h.reservation === 'object' &&
        typeof h.reservation.lockId === 'string' &&
        typeof h.reservation.uuid === 'string'))
  );
}

/** The record in a znode's data; a record with an unstorable status if it cannot be read. */
export function decodeRecord(data: Buffer): StoredRecord {
  const end = data.indexOf(NEWLINE);
  if (end < 0) return UNREADABLE;
  let header: unknown;
  try {
    header = JSON.parse(data.toString('utf8', 0, end));
  } catch {
    return UNREADABLE;
  }
  if (!isHeader(header) || end + 1 + header.stackBytes > data.length) return UNREADABLE;
  const infoAt = end + 1 + header.stackBytes;
  return {
    status: header.status,
    stack: data.toString('utf8', end + 1, infoAt),
    info: data.toString('utf8', infoAt),
    reservation: header.reservation,
    deferUntil: header.deferUntil,
  };
}

/** True for the stand-in of an unreadable znode. */
export function isUnreadable(record: StoredRecord): boolean {
  return record === UNREADABLE;
}
