import { STORED_STATUSES, type Status } from '@fate/core';
import { adminCommand } from './admin-command.js';
import { count, json } from './format.js';
import { CORRUPT, ROW_STATUSES, type RowStatus } from './row-status.js';

/** What a counted status shows as: a stored status, or CORRUPT for text that is none. */
const shown = (status: string): RowStatus =>
  STORED_STATUSES.includes(status as Status) ? (status as Status) : CORRUPT;

/**
 * `fate summary`: counts by status (CORRUPT for stored statuses that are none) and by op,
 * counted by the store (`FatesStore.counts`: an index, no record decoded), reservations
 * from the reservation index, live instances.
 */
export const summaryCommand = adminCommand({
  name: 'summary',
  usage: '[--json]',
  summary: 'counts by status and by op (counted by the store), reservations, live instances',
  options: { json: { type: 'boolean' } },
  async run(store, args) {
    const counts = await store.counts();
    const byStatus: Record<string, number> = {};
    const byOp: Record<string, Record<string, number>> = {};
    for (const g of counts.byOpStatus) {
      const status = shown(g.status);
      byStatus[status] = (byStatus[status] ?? 0) + g.count;
      const opName = g.opName === '' ? '-' : g.opName;
      const op = byOp[opName] ?? {};
      op[status] = (op[status] ?? 0) + g.count;
      byOp[opName] = op;
    }
    const live = (await store.instanceRecords()).filter((r) => r.current).map((r) => r.lockId);
    const reserved = (await store.reservations()).length;
    if (args.values.json) {
      return json({ total: counts.total, byStatus, byOp, reserved, liveInstances: live });
    }
    const out = [
      `${count(counts.total, 'transaction')}, ${reserved} reserved, ${count(live.length, 'live instance')}`,
    ];
    for (const s of ROW_STATUSES) if (byStatus[s]) out.push(`  ${s.padEnd(18)} ${byStatus[s]}`);
    for (const [op, n] of Object.entries(byOp).sort(([a], [b]) => a.localeCompare(b))) {
      const parts = ROW_STATUSES.filter((s) => n[s]).map((s) => `${s} ${n[s]}`);
      out.push(`  op ${op}: ${parts.join(', ')}`);
    }
    return out.join('\n');
  },
});
