import {
  FateError,
  FateErrorCode,
  MAX_PRIORITY,
  MIN_PRIORITY,
  type Reservation,
  type StoredRecord,
} from '@fate/core';
import { millis, type ZkStat } from './zk-native.js';

/**
 * How a transaction is stored in its znode: one line of JSON with the small fields, then
 * the stack and info texts raw, back to back:
 *
 * ```
 * {"v":2,"status":"IN_PROGRESS","op":"order","reservation":null,"deferUntil":0,"stackBytes":27}\n
 * [{"type":"a","state":{}}]{"opName":"op","created":1764460000000}
 * ```
 *
 * The texts are never escaped into JSON strings, so a record at the declared limit grows
 * only by its header line (escaping could double it), and reading one needs no parse of
 * the stack or info: the guard decodes those. `op` sits in the header because a scan
 * reads every record it returns anyway, so it costs no extra read.
 *
 * A deferral is written relative: `deferMs` counts from the znode's own mtime, which the
 * server stamps with its clock as it applies the release, so the release and its deferral
 * take one clock and no client's estimate of it. Any later write keeps it as the absolute
 * `deferUntil` (that mtime + `deferMs`, both server time). Version 1 headers (no `op`,
 * always absolute) still read. `priority` is written only when not 0 (issue 25): a header
 * without it, as every version before wrote, reads as 0, and older versions ignore it.
 */
interface Header {
  readonly v: 1 | 2;
  readonly status: string;
  readonly op?: string;
  readonly reservation: Reservation | null;
  readonly deferUntil: number;
  readonly deferMs?: number;
  readonly stackBytes: number;
  readonly priority?: number;
}

/** A record as read, with its op name and the stat its next conditional write must match. */
export interface ReadRecord {
  readonly record: StoredRecord;
  readonly op: string;
  readonly stat: ZkStat;
}

/**
 * Room kept for the header line and the request around the data (path, version, framing):
 * a header with a 142-character lock id and a long op name is well under 1 KiB, so 48 KiB
 * leaves the chroot path ample space. `maxRecordBytes` = `jute.maxbuffer` − this.
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

/**
 * The znode data of `record`; with `deferMs`, the deferral counts from the write's own
 * mtime (and `record.deferUntil` is not written).
 */
export function encodeRecord(record: StoredRecord, op: string, deferMs?: number): Buffer {
  const header: Header = {
    v: 2,
    status: record.status,
    op,
    reservation: record.reservation
      ? { lockId: record.reservation.lockId, uuid: record.reservation.uuid }
      : null,
    deferUntil: deferMs === undefined ? record.deferUntil : 0,
    ...(deferMs ? { deferMs } : {}),
    stackBytes: Buffer.byteLength(record.stack),
    ...(record.priority ? { priority: record.priority } : {}),
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
    (h.v === 1 || h.v === 2) &&
    typeof h.status === 'string' &&
    (h.op === undefined || typeof h.op === 'string') &&
    Number.isSafeInteger(h.deferUntil) &&
    (h.deferMs === undefined || Number.isSafeInteger(h.deferMs)) &&
    Number.isSafeInteger(h.stackBytes) &&
    h.stackBytes >= 0 &&
    (h.priority === undefined ||
      (Number.isInteger(h.priority) && h.priority >= MIN_PRIORITY && h.priority <= MAX_PRIORITY)) &&
    (h.reservation === null ||
      (typeof h.reservation === 'object' &&
        typeof h.reservation.lockId === 'string' &&
        typeof h.reservation.uuid === 'string'))
  );
}

/**
 * The record in a znode's data (`stat` is the znode's: a relative deferral counts from its
 * mtime); a record with an unstorable status if it cannot be read.
 */
export function decodeRecord(data: Buffer, stat: ZkStat): ReadRecord {
  const end = data.indexOf(NEWLINE);
  let header: unknown;
  try {
    header = end < 0 ? undefined : JSON.parse(data.toString('utf8', 0, end));
  } catch {
    header = undefined;
  }
  if (!isHeader(header) || end + 1 + header.stackBytes > data.length) {
    return { record: UNREADABLE, op: '', stat };
  }
  const infoAt = end + 1 + header.stackBytes;
  const record: StoredRecord = {
    status: header.status,
    stack: data.toString('utf8', end + 1, infoAt),
    info: data.toString('utf8', infoAt),
    reservation: header.reservation,
    deferUntil: header.deferMs ? millis(stat.mtime) + header.deferMs : header.deferUntil,
    ...(header.priority ? { priority: header.priority } : {}),
  };
  return { record, op: header.op ?? '', stat };
}

/** True for the stand-in of an unreadable znode. */
export function isUnreadable(record: StoredRecord): boolean {
  return record === UNREADABLE;
}
