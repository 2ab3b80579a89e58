import { adminCommand } from './admin-command.js';
import { count, json } from './format.js';
import { ROW_STATUSES, rowStatus } from './row-status.js';

/** `fate summary`: counts by status (CORRUPT for records that cannot be decoded) and by op. */
export const summaryCommand = adminCommand({
  name: 'summary',
  usage: '[--json]',
  summary: 'counts by status and by op, reservations, live instances',
  options: { json: { type: 'boolean' } },
  async run(store, args) {
    const rows = await store.list();
    const byStatus: Record<string, number> = {};
    const byOp: Record<string, Record<string, number>> = {};
    for (const r of rows) {
      const status = rowStatus(r);
      byStatus[status] = (byStatus[status] ?? 0) + 1;
      const op = byOp[r.opName ?? '-'] ?? {};
      op[status] = (op[status] ?? 0) + 1;
      byOp[r.opName ?? '-'] = op;
    }
    const live = await store.liveInstances();
    const reserved = rows.filter((r) => r.reservation).length;
    if (args.values.json) {
      return json({ total: rows.length, byStatus, byOp, reserved, liveInstances: live });
    }
    const out = [
      `${count(rows.length, 'transaction')}, ${reserved} reserved, ${count(live.length, 'live instance')}`,
    ];
    for (const s of ROW_STATUSES) if (byStatus[s]) out.push(`  ${s.padEnd(18)} ${byStatus[s]}`);
    for (const [op, counts] of Object.entries(byOp).sort(([a], [b]) => a.localeCompare(b))) {
      const parts = ROW_STATUSES.filter((s) => counts[s]).map((s) => `${s} ${counts[s]}`);
      out.push(`  op ${op}: ${parts.join(', ')}`);
    }
    return out.join('\n');
  },
});
