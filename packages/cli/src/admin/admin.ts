import {
  ALL_STATUSES,
  FateError,
  FateErrorCode,
  type FatesStore,
  invalidArgument,
  parseFateId,
  Status,
  type TxSummary,
} from '@fate/core';

/** Admin operations (Accumulo's `admin fate`), over any store. */
export interface AdminRequest {
  readonly action: 'list' | 'summary' | 'cancel' | 'fail' | 'delete';
  readonly id?: string;
  readonly statuses?: readonly string[];
  readonly opName?: string;
  readonly force?: boolean;
  readonly json?: boolean;
}

export async function runAdmin(store: FatesStore, req: AdminRequest): Promise<string> {
  switch (req.action) {
    case 'list':
      return list(store, req);
    case 'summary':
      return summary(store, req.json === true);
    case 'cancel':
      return cancel(store, parseFateId(req.id));
    case 'fail':
      return fail(store, parseFateId(req.id));
    case 'delete':
      return remove(store, parseFateId(req.id), req.force === true);
  }
}

async function list(store: FatesStore, req: AdminRequest): Promise<string> {
  const statuses = req.statuses?.map((s) => {
    const status = s.toUpperCase() as Status;
    if (!ALL_STATUSES.includes(status))
      throw invalidArgument(`unknown status ${s} (one of ${ALL_STATUSES.join(', ')})`);
    return status;
  });
  const rows = await store.list({
    ...(statuses ? { statuses } : {}),
    ...(req.opName ? { opName: req.opName } : {}),
  });
  if (req.json) return JSON.stringify(rows, null, 2);
  const lines = rows.map(
    (r: TxSummary) =>
      `${r.id}  ${r.status.padEnd(18)} ${(r.opName ?? '-').padEnd(14)} ${(r.top ?? '-').padEnd(16)} ` +
      `${r.created ? new Date(r.created).toISOString() : '-'}  ${r.reservation?.lockId ?? '-'}${r.corrupt ? `  CORRUPT: ${r.corrupt}` : ''}`,
  );
  return [
    `${'id'.padEnd(36)}  ${'status'.padEnd(18)} ${'op'.padEnd(14)} ${'top step'.padEnd(16)} created                   holder`,
    ...lines,
    `${rows.length} transactions`,
  ].join('\n');
}

async function summary(store: FatesStore, json: boolean): Promise<string> {
  const rows = await store.list();
  const byStatus: Record<string, number> = {};
  const byOp: Record<string, Record<string, number>> = {};
  for (const r of rows) {
    byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    const op = r.opName ?? '-';
    byOp[op] ??= {};
    byOp[op][r.status] = (byOp[op][r.status] ?? 0) + 1;
  }
  const live = await store.liveInstances();
  const reserved = rows.filter((r) => r.reservation).length;
  if (json)
    return JSON.stringify(
      { total: rows.length, byStatus, byOp, reserved, liveInstances: live },
      null,
      2,
    );
  const out = [`${rows.length} transactions, ${reserved} reserved, ${live.length} live instances`];
  for (const s of ALL_STATUSES) if (byStatus[s]) out.push(`  ${s.padEnd(18)} ${byStatus[s]}`);
  for (const [op, counts] of Object.entries(byOp).sort()) {
    out.push(
      `  op ${op}: ${Object.entries(counts)
        .map(([s, n]) => `${s} ${n}`)
        .join(', ')}`,
    );
  }
  return out.join('\n');
}

async function cancel(store: FatesStore, id: ReturnType<typeof parseFateId>): Promise<string> {
  const fate = await store.reserve(id, { timeoutMs: 10_000 });
  try {
    const status = await fate.getStatus();
    if (status !== Status.NEW && status !== Status.SUBMITTED) {
      throw new FateError(
        FateErrorCode.ILLEGAL_STATUS,
        `cannot cancel ${id}: it is ${status} (only NEW and SUBMITTED)`,
      );
    }
    await fate.commit([
      { op: 'setInfo', key: 'error', value: { message: 'cancelled by admin', name: 'Cancelled' } },
      { op: 'setStatus', status: Status.FAILED },
    ]);
    return `cancelled ${id}`;
  } finally {
    if (fate.isReserved) await fate.unreserve();
  }
}

async function fail(store: FatesStore, id: ReturnType<typeof parseFateId>): Promise<string> {
  const fate = await store.reserve(id, { timeoutMs: 10_000 });
  try {
    const status = await fate.getStatus();
    if (status === Status.SUCCESSFUL || status === Status.FAILED) {
      throw new FateError(
        FateErrorCode.ILLEGAL_STATUS,
        `cannot fail ${id}: it already finished (${status})`,
      );
    }
    await fate.commit([
      { op: 'setInfo', key: 'error', value: { message: 'failed by admin', name: 'AdminFailure' } },
      { op: 'setStatus', status: Status.FAILED_IN_PROGRESS },
    ]);
    return `${id} is FAILED_IN_PROGRESS: an engine will undo its steps`;
  } finally {
    if (fate.isReserved) await fate.unreserve();
  }
}

async function remove(
  store: FatesStore,
  id: ReturnType<typeof parseFateId>,
  force: boolean,
): Promise<string> {
  const fate = await store.reserve(id, { timeoutMs: 10_000 });
  try {
    if (force) await fate.forceDelete();
    else await fate.delete();
    return `deleted ${id}`;
  } finally {
    if (fate.isReserved) await fate.unreserve();
  }
}
