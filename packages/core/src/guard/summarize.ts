import type { StoredRecord } from '../contract/backend.js';
import type { ListFilter, TxSummary } from '../contract/types.js';
import { invalidArgument } from '../errors.js';
import type { FateId } from '../ids.js';
import { ALL_STATUSES, Status } from '../status.js';
import { decodeInfo, decodeStack, decodeStatus } from './codec.js';

/** One `list` row; a record that does not decode is listed with why, not thrown. */
export function summarize(id: FateId, record: StoredRecord): TxSummary {
  // The fields are listed, not spread from a shared head: an object literal that starts
  // with a spread and then adds keys takes a slow path in Node 20 (about 1 µs a key), and a
  // listing summarizes every record of its page.
  const held = record.reservation ? { reservation: record.reservation } : {};
  const priority = record.priority ?? 0;
  try {
    const status = decodeStatus(id, record.status);
    const stack = decodeStack(id, record.stack);
    const info = decodeInfo(id, record.info);
    return {
      id,
      deferUntil: record.deferUntil,
      priority,
      ...held,
      status,
      stackDepth: stack.length,
      ...(stack.length ? { top: stack[stack.length - 1]?.type } : {}),
      ...(info.opName !== undefined ? { opName: info.opName } : {}),
      ...(info.created !== undefined ? { created: info.created } : {}),
    } as TxSummary;
  } catch (err) {
    const corrupt = (err as Error).message;
    return {
      id,
      deferUntil: record.deferUntil,
      priority,
      ...held,
      status: Status.UNKNOWN,
      stackDepth: 0,
      corrupt,
    };
  }
}

/** The statuses a list filter asks for (undefined: all); a bad filter is a TypeError. */
export function checkListFilter(filter: ListFilter): Set<Status> | undefined {
  if (filter.opName !== undefined && typeof filter.opName !== 'string') {
    throw invalidArgument('opName must be a string');
  }
  if (filter.statuses === undefined) return undefined;
  const statuses = new Set(filter.statuses);
  for (const s of statuses) {
    if (!ALL_STATUSES.includes(s)) throw invalidArgument(`not a status: ${String(s)}`);
  }
  return statuses;
}

/** `list` rows, filtered again (the backend's filter is a hint), in id order. */
export function summarizeRows(
  rows: ReadonlyArray<{ id: string; record: StoredRecord }>,
  statuses: ReadonlySet<Status> | undefined,
  opName: string | undefined,
): TxSummary[] {
  const out: TxSummary[] = [];
  for (const { id, record } of rows) {
    const summary = summarize(id as FateId, record);
    if (statuses && !statuses.has(summary.status)) continue;
    if (opName !== undefined && summary.opName !== opName) continue;
    out.push(summary);
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
