import { type InstanceRecordView, STORED_STATUSES } from '@fate/core';
import { duration } from '../../admin/format.js';
import { CORRUPT, ROW_STATUSES } from '../../admin/row-status.js';
import { clip } from '../clip.js';
import { type Html, html } from '../html.js';
import type { UiContext } from '../ui-context.js';
import { byLockId, holderCell, statusBadge } from './format-ui.js';

/** Reservations of dead holders listed on the overview; the count says how many in all. */
const DEAD_SHOWN = 20;
const WINDOWS: readonly [string, number][] = [
  ['last minute', 60_000],
  ['last 5 min', 300_000],
  ['last 10 min', 600_000],
];

/** The overview's live part: counts, throughput, engines, transactions held by dead holders. */
export async function overview(ctx: UiContext): Promise<Html> {
  const [counts, records, reservations] = await Promise.all([
    ctx.sampler.latest(),
    ctx.store.instanceRecords(),
    ctx.store.reservations(),
  ]);
  const now = ctx.store.now();
  const holders = byLockId(records);
  const dead = reservations.filter((r) => holders.get(r.reservation.lockId)?.current !== true);
  const ops = Object.entries(counts.byOp).sort(([a], [b]) => a.localeCompare(b));
  const statusLink = (s: string) => `/tx?status=${encodeURIComponent(s)}`;
  const engines = [...records].sort((a, b) => Number(b.current) - Number(a.current));
  return html`
<section class="cards">
<div class="card"><div class="big" data-count="total">${counts.total}</div>transactions</div>
<div class="card"><div class="big">${reservations.length}</div>reserved</div>
<div class="card"><div class="big">${records.filter((r) => r.current && r.group !== undefined).length}</div>live engines</div>
<div class="card"><div class="big">${dead.length}</div>held by dead holders</div>
</section>
<h2>By status</h2>
<table class="counts"><tbody>
${ROW_STATUSES.map(
  (s) =>
    html`<tr><td><a href="${statusLink(s)}">${statusBadge(s)}</a></td><td class="num" data-status="${s}">${counts.byStatus[s] ?? 0}</td></tr>`,
)}
</tbody></table>
<h2>By op</h2>
${
  ops.length === 0
    ? html`<p class="muted">no transactions</p>`
    : html`<table><thead><tr><th>op</th>${[...STORED_STATUSES, CORRUPT].map((s) => html`<th>${s}</th>`)}</tr></thead><tbody>
${ops.map(
  ([op, c]) =>
    html`<tr><td><a href="/tx?op=${encodeURIComponent(op)}">${clip(op, 80)}</a></td>${[...STORED_STATUSES, CORRUPT].map((s) => html`<td class="num">${c[s] ?? ''}</td>`)}</tr>`,
)}</tbody></table>`
}
<h2>Throughput</h2>
<table><thead><tr><th></th><th>succeeded / s</th><th>failed / s</th></tr></thead><tbody>
${WINDOWS.map(([label, ms]) => {
  const r = ctx.sampler.rate(ms);
  return html`<tr><td>${label}</td><td class="num">${r ? r.succeededPerS.toFixed(1) : '…'}</td><td class="num">${r ? r.failedPerS.toFixed(1) : '…'}</td></tr>`;
})}
</tbody></table>
<p class="muted">Growth of the SUCCESSFUL and FAILED counts while this console watched (sampled at most every ${duration(ctx.refreshMs)}; auto-cleaned transactions are not counted). Counts read ${duration(Math.max(0, now - counts.at))} ago.</p>
<h2>Engines and clients</h2>
${
  engines.length === 0
    ? html`<p class="muted">no liveness records</p>`
    : html`<table><thead><tr><th>instance</th><th>lock id</th><th>group (pools' ops)</th><th>pools: busy / idle / queued</th><th>state</th><th>last heartbeat</th><th>timeout</th></tr></thead><tbody>
${engines.map(
  (r) =>
    html`<tr><td>${clip(r.instanceId, 80)}</td><td><code>${clip(r.lockId, 120)}</code></td><td>${r.group === undefined ? html`<span class="muted">client</span>` : clip(r.group, 200)}</td><td>${poolsCell(r.pools)}</td><td class="${r.current ? 'live' : 'dead'}">${r.gone ? 'closed' : r.current ? 'live' : 'not renewing'}</td><td>${r.lastHeartbeatMsAgo === undefined ? '-' : `${duration(r.lastHeartbeatMsAgo)} ago`}</td><td>${duration(r.timeoutMs)}</td></tr>`,
)}</tbody></table>`
}
<p class="muted">Pools as each engine wrote them with its last heartbeat; an engine's group names the ops its pools run.</p>
<h2>Held by dead holders</h2>
<p class="muted">All of them: <a href="/tx?holder=dead">the list, holder dead</a>. Deferred ones and until when: <a href="/tx?deferred=yes">the list, deferred</a>.</p>
${
  dead.length === 0
    ? html`<p class="muted">none</p>`
    : html`<table><thead><tr><th>transaction</th><th>holder</th><th>cleared</th></tr></thead><tbody>
${dead.slice(0, DEAD_SHOWN).map((e) => {
  const r = holders.get(e.reservation.lockId);
  const left = r && r.lastHeartbeatMsAgo !== undefined ? r.timeoutMs - r.lastHeartbeatMsAgo : 0;
  return html`<tr><td><a href="/tx/${e.id}"><code>${e.id}</code></a></td><td>${holderCell(e.reservation, holders)}</td><td>${left > 0 ? `in about ${duration(left)} (once watched silent for its timeout)` : 'by the next engine that sweeps its share'}</td></tr>`;
})}</tbody></table>${dead.length > DEAD_SHOWN ? html`<p class="muted">and ${dead.length - DEAD_SHOWN} more</p>` : ''}`
}
`;
}

/** An engine's pools at its last heartbeat: `name busy/idle/queued (of workers)` each. */
function poolsCell(pools: InstanceRecordView['pools']) {
  if (!pools || pools.length === 0) return html`<span class="muted">-</span>`;
  return html`${pools.map(
    (p, i) =>
      html`${i > 0 ? html`<br>` : ''}${clip(p.name, 64)} ${p.busy} / ${p.idle} / ${p.queued} <span class="muted">(of ${p.workers})</span>`,
  )}`;
}
