import type { StoreBackend, StoredRecord } from '../contract/backend.js';
import type {
  BackendCount,
  BackendListPage,
  BackendListQuery,
  BackendListRow,
} from '../contract/backend-queries.js';
import type {
  ListPage,
  ListQuery,
  StoreCounts,
  StoreQueryCosts,
  TxRow,
} from '../contract/query-types.js';
import { invalidArgument } from '../errors.js';
import { type FateId, isFateId } from '../ids.js';
import { STORED_STATUSES, Status } from '../status.js';
import type { BackendCaller } from './backend-caller.js';
import { decodeInfo, decodeStatus } from './codec.js';

/** Rows in a `listPage` unless the caller asks otherwise, and the most it may ask. */
export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 10_000;

/** What each query costs on `backend`: indexed when it implements the optional operation. */
export function queryCosts(backend: StoreBackend): StoreQueryCosts {
  const cost = (has: boolean): 'indexed' | 'full-read' => (has ? 'indexed' : 'full-read');
  return Object.freeze({
    ageOff: cost(typeof backend.ageOffDue === 'function'),
    counts: cost(typeof backend.counts === 'function'),
    listPage: cost(typeof backend.listPage === 'function'),
  });
}

/** Checks a `ListQuery`; returns the backend's form of it. */
export function checkListQuery(query: ListQuery): BackendListQuery {
  if (query === null || typeof query !== 'object') throw invalidArgument('query must be an object');
  const limit = query.limit ?? DEFAULT_PAGE_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
    throw invalidArgument(`limit must be an integer in 1..${MAX_PAGE_LIMIT}`);
  }
  if (query.after !== undefined && !isFateId(query.after)) {
    throw invalidArgument('after must be a fate id');
  }
  for (const key of ['opName', 'holder'] as const) {
    if (query[key] !== undefined && typeof query[key] !== 'string') {
      throw invalidArgument(`${key} must be a string`);
    }
  }
  for (const key of ['reserved', 'deferred'] as const) {
    if (query[key] !== undefined && typeof query[key] !== 'boolean') {
      throw invalidArgument(`${key} must be a boolean`);
    }
  }
  let statuses: Set<Status> | undefined;
  if (query.statuses !== undefined) {
    statuses = new Set(query.statuses);
    for (const s of statuses) {
      if (!STORED_STATUSES.includes(s)) throw invalidArgument(`not a stored status: ${String(s)}`);
    }
  }
  return {
    limit,
    ...(statuses ? { statuses } : {}),
    ...(query.opName !== undefined ? { op: query.opName } : {}),
    ...(query.reserved !== undefined ? { reserved: query.reserved } : {}),
    ...(query.holder !== undefined ? { holder: query.holder } : {}),
    ...(query.deferred !== undefined ? { deferred: query.deferred } : {}),
    ...(query.after !== undefined ? { after: query.after } : {}),
  };
}

/** True when `row` matches `q` at store time `now` (the guard filters every page again). */
export function rowMatches(row: BackendListRow, q: BackendListQuery, now: number): boolean {
  if (q.after !== undefined && row.id <= q.after) return false;
  if (q.statuses && !q.statuses.has(row.status as Status)) return false;
  if (q.op !== undefined && row.op !== q.op) return false;
  if (q.reserved !== undefined && (row.reservation !== null) !== q.reserved) return false;
  if (q.holder !== undefined) {
    const lockId = row.reservation?.lockId;
    if (lockId === undefined) return false;
    if (lockId !== q.holder && !lockId.startsWith(`${q.holder}@`)) return false;
  }
  if (q.deferred !== undefined && row.deferUntil > now !== q.deferred) return false;
  return true;
}

/** A backend row as a public row: the status decoded, nothing else. */
export function toTxRow(row: BackendListRow): TxRow {
  let status: Status = Status.UNKNOWN;
  let corrupt: string | undefined;
  try {
    status = decodeStatus(row.id as FateId, row.status);
  } catch (err) {
    corrupt = (err as Error).message;
  }
  return {
    id: row.id as FateId,
    status,
    ...(row.op !== '' ? { opName: row.op } : {}),
    ...(row.reservation ? { reservation: row.reservation } : {}),
    deferUntil: row.deferUntil,
    priority: row.priority ?? 0,
    ...(row.finishedAt !== undefined ? { finishedAt: row.finishedAt } : {}),
    ...(corrupt !== undefined ? { corrupt } : {}),
  };
}

/** A stored record as a list row, for the full-read fallback (decodes info for the op name). */
export function recordRow(id: string, record: StoredRecord): BackendListRow {
  let op = '';
  try {
    op = decodeInfo(id as FateId, record.info).opName ?? '';
  } catch {
    // listed with no op; `read` says why it does not decode
  }
  return {
    id,
    status: record.status,
    op,
    reservation: record.reservation,
    deferUntil: record.deferUntil,
    ...(record.priority ? { priority: record.priority } : {}),
  };
}

/** `listPage` from a full read, for backends without `listPage`. */
export async function listPageByFullRead(
  caller: BackendCaller,
  q: BackendListQuery,
  now: number,
): Promise<BackendListPage> {
  const all = await caller.retried('listPage', (b) => b.list(q.statuses));
  const rows = all
    .map(({ id, record }) => recordRow(id, record))
    .filter((r) => rowMatches(r, q, now))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return { rows: page, ...(rows.length > q.limit && last ? { last: last.id } : {}) };
}

/** One checked page: the backend's (or the fallback's), filtered again. */
export async function listPage(
  caller: BackendCaller,
  backend: StoreBackend,
  query: ListQuery,
  now: () => number,
): Promise<ListPage> {
  const q = checkListQuery(query);
  const page =
    typeof backend.listPage === 'function'
      ? await caller.retried('listPage', (b) => (b.listPage as NonNullable<typeof b.listPage>)(q))
      : await listPageByFullRead(caller, q, now());
  // Filtered again, but for the deferral, which the backend judged by its own clock.
  const { deferred: _judged, ...again } = q;
  const rows = page.rows
    .filter((r) => rowMatches(r, again, 0))
    .slice(0, q.limit)
    .map(toTxRow);
  return { rows, ...(page.last !== undefined ? { next: page.last } : {}) };
}

/** Counts from the backend's groups. */
export function foldCounts(groups: readonly BackendCount[]): StoreCounts {
  const byStatus = Object.fromEntries(STORED_STATUSES.map((s) => [s, 0])) as Record<string, number>;
  const byOp: Record<string, number> = {};
  let total = 0;
  const byOpStatus: Array<{ opName: string; status: string; count: number }> = [];
  for (const g of groups) {
    if (!Number.isSafeInteger(g.count) || g.count <= 0) continue;
    total += g.count;
    byStatus[g.status] = (byStatus[g.status] ?? 0) + g.count;
    byOp[g.op] = (byOp[g.op] ?? 0) + g.count;
    byOpStatus.push({ opName: g.op, status: g.status, count: g.count });
  }
  byOpStatus.sort((a, b) =>
    a.opName !== b.opName ? (a.opName < b.opName ? -1 : 1) : a.status < b.status ? -1 : 1,
  );
  return { total, byStatus: byStatus as StoreCounts['byStatus'], byOp, byOpStatus };
}

/** `counts` from the store, or from a full read for backends without `counts`. */
export async function counts(caller: BackendCaller, backend: StoreBackend): Promise<StoreCounts> {
  if (typeof backend.counts === 'function') {
    return foldCounts(
      await caller.retried('counts', (b) => (b.counts as NonNullable<typeof b.counts>)()),
    );
  }
  const all = await caller.retried('counts', (b) => b.list());
  const groups = new Map<string, BackendCount>();
  for (const { id, record } of all) {
    const { status, op } = recordRow(id, record);
    const key = `${status}\u0000${op}`;
    const g = groups.get(key);
    groups.set(key, { status, op, count: (g?.count ?? 0) + 1 });
  }
  return foldCounts([...groups.values()]);
}
