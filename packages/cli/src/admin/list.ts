import type { FatesStore, Status, TxSummary } from '@fate/core';
import type { CommandArgs } from '../command.js';
import { stringValue } from '../command.js';
import { adminCommand } from './admin-command.js';
import { count, deferralText, duration, json, table } from './format.js';
import { Holders } from './holders.js';
import { CORRUPT, parseStatuses, rowStatus } from './row-status.js';

/** `fate list`: one row per transaction, filtered by status (CORRUPT too) and op name. */
export const listCommand = adminCommand({
  name: 'list',
  usage: '[--status S,S] [--op NAME] [--json]',
  summary: 'transactions: status, op, top step, holder, deferral, age',
  options: { status: { type: 'string' }, op: { type: 'string' }, json: { type: 'boolean' } },
  check(args) {
    const raw = stringValue(args, 'status');
    if (raw !== undefined) parseStatuses(raw);
  },
  async run(store, args) {
    const rows = await listRows(store, args);
    const holders = await Holders.read(store);
    const now = store.now();
    const holderAlive = (r: TxSummary) => !!r.reservation && holders.current(r.reservation.lockId);
    if (args.values.json) {
      return json(
        rows.map((r) => ({
          ...r,
          status: rowStatus(r),
          ...(r.reservation ? { holderAlive: holderAlive(r) } : {}),
        })),
      );
    }
    const lines = rows.map((r) => [
      r.id,
      rowStatus(r),
      r.opName ?? '-',
      r.top ?? '-',
      holders.describe(r.reservation),
      deferralText(r.deferUntil, now),
      r.created === undefined ? '-' : duration(now - r.created),
      r.corrupt ?? '',
    ]);
    const header = ['id', 'status', 'op', 'top step', 'holder', 'deferred', 'age', ''];
    return `${table(lines, header)}\n${count(rows.length, 'transaction')}`;
  },
});

async function listRows(store: FatesStore, args: CommandArgs): Promise<TxSummary[]> {
  const raw = stringValue(args, 'status');
  const wanted = raw === undefined ? undefined : parseStatuses(raw);
  const opName = stringValue(args, 'op');
  // A record that cannot be decoded has no status the store could filter on: when CORRUPT
  // is asked for, every row is read and filtered here.
  const statuses = wanted && !wanted.has(CORRUPT) ? [...wanted] : undefined;
  const rows = await store.list({
    ...(statuses ? { statuses: statuses as Status[] } : {}),
    ...(opName !== undefined ? { opName } : {}),
  });
  return wanted ? rows.filter((r) => wanted.has(rowStatus(r))) : rows;
}
