import { type FatesStore, mapLimit, type Status, type TxRow } from '@fate/core';
import { usageError } from '../cli-error.js';
import type { CommandArgs } from '../command.js';
import { stringValue } from '../command.js';
import { adminCommand } from './admin-command.js';
import { count, deferralText, duration, json, table } from './format.js';
import { Holders } from './holders.js';
import { CORRUPT, parseStatuses, rowStatus } from './row-status.js';

/** Rows in one `fate list` page unless `--limit` says otherwise. */
export const DEFAULT_LIST_LIMIT = 100;

/** A page row with what only a read of the record says (top step, age, why it is corrupt). */
interface ListedRow extends TxRow {
  readonly top?: string;
  readonly stackDepth?: number;
  readonly created?: number;
}

/**
 * `fate list`: one page of transactions in id order (`--limit`, default 100; `--after ID`
 * for the next), filtered by status (CORRUPT too) and op name. It reads one page from the
 * store's index and then each row of it, so a page costs the same at any store size.
 */
export const listCommand = adminCommand({
  name: 'list',
  usage: '[--status S,S] [--op NAME] [--limit N] [--after ID] [--json]',
  summary: 'transactions, a page at a time: status, op, priority, top step, holder, deferral, age',
  options: {
    status: { type: 'string' },
    op: { type: 'string' },
    limit: { type: 'string' },
    after: { type: 'string' },
    json: { type: 'boolean' },
  },
  check(args) {
    const raw = stringValue(args, 'status');
    if (raw !== undefined) parseStatuses(raw);
    limitOf(args);
  },
  async run(store, args) {
    const { rows, next } = await listPage(store, args);
    const holders = await Holders.read(store);
    const now = store.now();
    const holderAlive = (r: ListedRow) => !!r.reservation && holders.current(r.reservation.lockId);
    const more = next === undefined ? undefined : nextCommand(args, next);
    if (args.values.json) {
      if (more) console.error(`more: ${more}`);
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
      String(r.priority),
      r.top ?? '-',
      holders.describe(r.reservation),
      deferralText(r.deferUntil, now),
      r.created === undefined ? '-' : duration(now - r.created),
      r.corrupt ?? '',
    ]);
    const header = ['id', 'status', 'op', 'prio', 'top step', 'holder', 'deferred', 'age', ''];
    const total = count(rows.length, 'transaction');
    const tail = more ? `${total} in this page; the next: ${more}` : total;
    return `${table(lines, header)}\n${tail}`;
  },
});

/** `--limit N`: a whole number from 1 to 10,000. */
function limitOf(args: CommandArgs): number {
  const raw = stringValue(args, 'limit');
  if (raw === undefined) return DEFAULT_LIST_LIMIT;
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= 10_000)) {
    throw usageError(`--limit must be a whole number from 1 to 10000, got ${JSON.stringify(raw)}`);
  }
  return n;
}

/** The same command line, for the page after `next`. */
function nextCommand(args: CommandArgs, next: string): string {
  const parts = ['fate list'];
  for (const name of ['status', 'op', 'limit'] as const) {
    const value = stringValue(args, name);
    if (value !== undefined) parts.push(`--${name} ${JSON.stringify(value)}`);
  }
  parts.push(`--after ${next}`);
  if (args.values.json) parts.push('--json');
  return parts.join(' ');
}

async function listPage(
  store: FatesStore,
  args: CommandArgs,
): Promise<{ rows: ListedRow[]; next?: string }> {
  const raw = stringValue(args, 'status');
  const wanted = raw === undefined ? undefined : parseStatuses(raw);
  const opName = stringValue(args, 'op');
  const after = stringValue(args, 'after');
  // A record that cannot be decoded has no status the store could filter on: when CORRUPT
  // is asked for, the page is read unfiltered by status and filtered here.
  const statuses = wanted && !wanted.has(CORRUPT) ? [...wanted] : undefined;
  const page = await store.listPage({
    limit: limitOf(args),
    ...(statuses ? { statuses: statuses as Status[] } : {}),
    ...(opName !== undefined ? { opName } : {}),
    ...(after !== undefined ? { after } : {}),
  });
  const rows = await mapLimit(page.rows, 16, (row) => withRecord(store, row));
  return {
    rows: wanted ? rows.filter((r) => wanted.has(rowStatus(r))) : rows,
    ...(page.next !== undefined ? { next: page.next } : {}),
  };
}

/** The row with its top step and age from a read; a record that does not decode says why. */
async function withRecord(store: FatesStore, row: TxRow): Promise<ListedRow> {
  if (row.corrupt !== undefined) return { ...row, stackDepth: 0 };
  try {
    const view = await store.read(row.id);
    const top = view.stack[view.stack.length - 1]?.type;
    return {
      ...row,
      stackDepth: view.stack.length,
      ...(top !== undefined ? { top } : {}),
      ...(view.info.created !== undefined ? { created: view.info.created } : {}),
    };
  } catch (err) {
    return { ...row, corrupt: (err as Error).message };
  }
}
