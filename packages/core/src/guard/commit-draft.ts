import type { RecordWrite } from '../contract/backend.js';
import type { FinishedEntry } from '../contract/backend-queries.js';
import type { TxChange } from '../contract/fate-store.js';
import { MAX_STACK_DEPTH } from '../contract/limits.js';
import type { TxInfo } from '../contract/types.js';
import { FateError, FateErrorCode, invalidArgument } from '../errors.js';
import type { FateId } from '../ids.js';
import { ALLOWED, FINISHED_STATUSES, isStoredStatus, type Status } from '../status.js';
import type { StepData } from '../step.js';
import {
  checkInfoKey,
  checkJson,
  checkStep,
  decodeInfo,
  decodeStack,
  encodeJson,
} from './codec.js';
import { checkPayloadSize } from './payload-size.js';

/** A handle's cached state, which a commit's draft starts from. */
export interface DraftBase {
  readonly id: FateId;
  readonly status: Status;
  readonly stackText: string;
  readonly infoText: string;
  /** Decoded already, when the handle needed them. */
  readonly stack?: StepData[] | undefined;
  readonly info?: TxInfo | undefined;
}

/** The state a commit works on; stack and info are decoded only when a change needs them. */
export interface Draft {
  status: Status;
  stackText: string;
  infoText: string;
  stack?: StepData[];
  info?: TxInfo;
  end?: 'delete' | 'unreserve';
  deferMs: number;
}

/**
 * Applies `changes` to a copy of the handle's cached state, checking each precondition.
 * Stack and info are copied only when a change touches them, and encoded once at the end
 * however many changes touched them: a commit is on every step's path.
 */
export function draftChanges(base: DraftBase, changes: readonly TxChange[]): Draft {
  const d: Draft = {
    status: base.status,
    stackText: base.stackText,
    infoText: base.infoText,
    deferMs: 0,
  };
  let stackChanged = false;
  let infoChanged = false;
  const stack = (): StepData[] => {
    if (!stackChanged) {
      d.stack = [...(base.stack ?? decodeStack(base.id, base.stackText))];
      stackChanged = true;
    }
    return d.stack as StepData[];
  };
  const info = (): TxInfo => {
    if (!infoChanged) {
      d.info = { ...(base.info ?? decodeInfo(base.id, base.infoText)) };
      infoChanged = true;
    }
    return d.info as TxInfo;
  };
  for (const change of changes) {
    if (d.end) throw invalidArgument(`nothing may follow ${d.end} in one commit`);
    switch (change?.op) {
      case 'setStatus':
        if (!isStoredStatus(change.status)) {
          throw invalidArgument(`not a status that can be stored: ${String(change.status)}`);
        }
        d.status = change.status;
        break;
      case 'push': {
        const step = checkStep(change.step);
        requireStatus(d.status, ALLOWED.push, 'push');
        if (stack().length >= MAX_STACK_DEPTH) {
          throw new FateError(
            FateErrorCode.STACK_OVERFLOW,
            `${base.id} already has ${MAX_STACK_DEPTH} steps`,
          );
        }
        stack().push(step);
        break;
      }
      case 'pop':
        requireStatus(d.status, ALLOWED.pop, 'pop');
        if (stack().length === 0) {
          throw new FateError(FateErrorCode.STACK_EMPTY, `${base.id} has no step to pop`);
        }
        stack().pop();
        break;
      case 'setInfo': {
        const key = checkInfoKey(change.key);
        if (change.value !== undefined) checkJson(`info ${key}`, change.value);
        if (change.value === undefined) delete info()[key];
        else (info() as Record<string, unknown>)[key] = change.value;
        break;
      }
      case 'delete':
        requireStatus(d.status, ALLOWED.delete, 'delete');
        d.end = 'delete';
        break;
      case 'forceDelete':
        d.end = 'delete';
        break;
      case 'unreserve':
        d.deferMs = checkDefer([change]);
        d.end = 'unreserve';
        break;
      default:
        throw invalidArgument(`unknown change: ${JSON.stringify(change)}`);
    }
  }
  if (d.end !== 'delete') {
    if (stackChanged) d.stackText = encodeJson('stack', d.stack);
    if (infoChanged) d.infoText = encodeJson('info', d.info);
  }
  if (!stackChanged && base.stack) d.stack = base.stack;
  if (!infoChanged && base.info) d.info = base.info;
  return d;
}

/** The one backend write for a draft; refuses a record over `maxRecordBytes`. */
export function draftWrite(base: DraftBase, d: Draft, maxRecordBytes: number): RecordWrite {
  if (d.end === 'delete') return { delete: true };
  checkPayloadSize(base.id, d.stackText, d.infoText, maxRecordBytes);
  // Built field by field: an object literal that starts with a spread takes a slow path in
  // Node 20 (about 1 µs an entry after it), and this is on every step's path.
  const write: { -readonly [K in keyof RecordWrite]: RecordWrite[K] } = {};
  if (d.status !== base.status) write.status = d.status;
  if (d.stackText !== base.stackText) write.stack = d.stackText;
  if (d.infoText !== base.infoText) write.info = d.infoText;
  if (d.end === 'unreserve') write.release = { deferMs: d.deferMs };
  const finished = finishedEntry(base, d);
  if (finished !== undefined) write.finished = finished;
  return write;
}

/**
 * The age-off index entry a write carries: when the write leaves the record finished with
 * its status or info changed, the stamp and retention from its info; when it moves it to
 * an unfinished status, null (out of the index); undefined: none.
 */
function finishedEntry(base: DraftBase, d: Draft): FinishedEntry | null | undefined {
  const statusChanged = d.status !== base.status;
  if (!FINISHED_STATUSES.has(d.status)) return statusChanged ? null : undefined;
  if (!statusChanged && d.infoText === base.infoText) return undefined;
  let info: TxInfo;
  try {
    info = d.info ?? decodeInfo(base.id, d.infoText);
  } catch {
    return {}; // info that does not decode: indexed by the store's clock
  }
  const entry: { -readonly [K in keyof FinishedEntry]: FinishedEntry[K] } = {};
  // whole ms, as the contract says: the stamp is the caller's number (info.ageOff, set
  // through commit), and a fraction would be refused by an integer column on every attempt
  if (typeof info.ageOff === 'number') entry.at = Math.round(info.ageOff);
  if (typeof info.retainMs === 'number') entry.retainMs = Math.round(info.retainMs);
  return entry;
}

/** Throws FATE_ILLEGAL_STATUS unless `status` allows `op`. */
export function requireStatus(status: Status, allowed: ReadonlySet<Status>, op: string): void {
  if (!allowed.has(status)) {
    throw new FateError(
      FateErrorCode.ILLEGAL_STATUS,
      `${op} is not allowed in status ${status} (allowed: ${[...allowed].join(', ')})`,
    );
  }
}

/** Validates the deferral of unreserve changes; returns the last one. */
export function checkDefer(changes: readonly TxChange[]): number {
  let ms = 0;
  for (const c of changes) {
    const v = c.op === 'unreserve' ? (c.deferMs ?? 0) : 0;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw Object.assign(new RangeError(`deferMs must be a finite number >= 0, got ${v}`), {
        code: FateErrorCode.INVALID_ARGUMENT,
      });
    }
    ms = Math.ceil(v);
  }
  return ms;
}
