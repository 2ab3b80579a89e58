import type { StoredRecord } from '../contract/backend.js';
import {
  type FateView,
  INFO_KEYS,
  type InfoKey,
  type Reservation,
  type TxInfo,
} from '../contract/types.js';
import { FateError, FateErrorCode, invalidArgument } from '../errors.js';
import type { FateId } from '../ids.js';
import { isStoredStatus, type Status } from '../status.js';
import type { StepData } from '../step.js';

// Encoding and decoding of stored records, in one place for every backend.

function corrupt(id: string, what: string, cause?: unknown): FateError {
  return new FateError(FateErrorCode.CORRUPT_DATA, `stored ${what} of ${id} cannot be decoded`, {
    cause,
  });
}

function isStep(value: unknown): value is StepData {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as StepData).type === 'string' &&
    (value as StepData).type !== '' &&
    'state' in value
  );
}

export function decodeStatus(id: string, raw: string): Status {
  if (!isStoredStatus(raw)) throw corrupt(id, 'status');
  return raw;
}

export function decodeStack(id: string, text: string): StepData[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw corrupt(id, 'stack', cause);
  }
  if (!Array.isArray(value) || !value.every(isStep)) throw corrupt(id, 'stack');
  return value;
}

export function decodeInfo(id: string, text: string): TxInfo {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw corrupt(id, 'info', cause);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw corrupt(id, 'info');
  }
  return value as TxInfo;
}

export function decodeView(id: FateId, record: StoredRecord): FateView {
  return {
    id,
    status: decodeStatus(id, record.status),
    stack: decodeStack(id, record.stack),
    info: decodeInfo(id, record.info),
    ...(record.reservation ? { reservation: record.reservation } : {}),
    deferUntil: record.deferUntil,
    priority: record.priority ?? 0,
  };
}

/** JSON text of a value that must survive a round trip; a programmer mistake otherwise. */
export function encodeJson(what: string, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    throw Object.assign(invalidArgument(`${what} is not JSON-serializable`), { cause });
  }
  if (text === undefined) throw invalidArgument(`${what} is not JSON-serializable`);
  return text;
}

/** How deep a stored value may nest (a step's state, an info value, a return value). */
export const MAX_JSON_DEPTH = 256;

/**
 * Refuses what JSON would silently change or drop: functions, symbols, `undefined` in
 * arrays, NaN and ±Infinity (become null), BigInt and cycles (throw), and objects that are
 * not plain (a Date becomes a string, a Map `{}`). What passes round-trips unchanged.
 */
export function checkJson(what: string, value: unknown): void {
  const seen = new Set<object>();
  const visit = (v: unknown, path: string, depth = 0): void => {
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return;
      case 'number':
        if (!Number.isFinite(v)) throw invalidArgument(`${what}: ${path} is ${v}, not JSON`);
        return;
      case 'object': {
        if (v === null) return;
        if (seen.has(v)) throw invalidArgument(`${what}: ${path} is a cycle, not JSON`);
        if (depth >= MAX_JSON_DEPTH) {
          // deeper would overflow the call stack here or in JSON.stringify: a plain RangeError
          throw invalidArgument(`${what}: nested deeper than ${MAX_JSON_DEPTH} levels`);
        }
        const proto = Object.getPrototypeOf(v);
        if (Array.isArray(v)) {
          seen.add(v);
          v.forEach((item, i) => {
            visit(item, `${path}[${i}]`, depth + 1);
          });
        } else if (proto === Object.prototype || proto === null) {
          seen.add(v);
          for (const [k, item] of Object.entries(v)) {
            if (item !== undefined) visit(item, `${path}.${k}`, depth + 1);
          }
        } else {
          const kind = (proto as { constructor?: { name?: string } })?.constructor?.name;
          throw invalidArgument(`${what}: ${path} is a ${kind ?? 'non-plain object'}, not JSON`);
        }
        seen.delete(v);
        return;
      }
      default:
        throw invalidArgument(`${what}: ${path} is a ${typeof v}, not JSON`);
    }
  };
  visit(value, '$');
}

/** Validates a step given by a caller. */
export function checkStep(step: unknown): StepData {
  if (!isStep(step)) {
    throw invalidArgument('a step is `{ type: non-empty string, state: JSON value }`');
  }
  checkJson(`state of step ${step.type}`, step.state);
  return { type: step.type, state: step.state };
}

export function checkInfoKey(key: unknown): InfoKey {
  if (!(INFO_KEYS as readonly unknown[]).includes(key)) {
    throw invalidArgument(`unknown info key: ${String(key)} (one of ${INFO_KEYS.join(', ')})`);
  }
  return key as InfoKey;
}

export function isReservation(value: unknown): value is Reservation {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Reservation).lockId === 'string' &&
    typeof (value as Reservation).uuid === 'string'
  );
}

export function sameReservation(a: Reservation | null | undefined, b: Reservation): boolean {
  return !!a && a.lockId === b.lockId && a.uuid === b.uuid;
}
