import {
  FateErrorCode,
  type FateId,
  type FateView,
  FINISHED_STATUSES,
  isFateError,
  Status,
  type TxError,
} from '@fate/core';
import { duration, priorityText } from '../../admin/format.js';
import { describeInternal, INTERNAL_LABEL } from '../../admin/internal-record.js';
import { retryErrorText, retrySummary } from '../../admin/retry-lines.js';
import { clip, preview } from '../clip.js';
import { type Html, html } from '../html.js';
import type { UiContext } from '../ui-context.js';
import { byLockId, holderCell, statusBadge } from './format-ui.js';

/** Frames of a recorded stack shown; causes followed at most this deep. */
const FRAMES = 5;
const CAUSES = 5;

/** What reading one transaction gave: its view, absent, or a record that cannot be decoded. */
export type TxRead =
  | { readonly kind: 'view'; readonly view: FateView }
  | { readonly kind: 'absent' }
  | { readonly kind: 'corrupt'; readonly reason: string };

export async function readTx(ctx: UiContext, id: FateId): Promise<TxRead> {
  try {
    const view = await ctx.store.read(id);
    return view.status === Status.UNKNOWN ? { kind: 'absent' } : { kind: 'view', view };
  } catch (err) {
    if (isFateError(err, FateErrorCode.CORRUPT_DATA))
      return { kind: 'corrupt', reason: err.message };
    throw err;
  }
}

const row = (label: string, value: Html | string) =>
  html`<tr><th>${label}</th><td>${value}</td></tr>`;

/** The transaction page's live part: what `fate show` prints. */
export async function txDetails(ctx: UiContext, id: FateId, read: TxRead): Promise<Html> {
  if (read.kind === 'absent')
    return html`<p class="notice note">no transaction <code>${id}</code> (deleted, or never existed)</p>`;
  if (read.kind === 'corrupt')
    return html`<p class="notice error" data-corrupt>corrupt: ${clip(read.reason, 1_000)}</p>
<p>The record cannot be decoded; a force-delete removes it.</p>`;
  const { view } = read;
  const { info, reservation, stack } = view;
  const now = ctx.store.now();
  const holders = byLockId(await ctx.store.instanceRecords());
  const undo = info.error?.undoErrors ?? [];
  const internal = describeInternal(info.internal);
  return html`<table class="fields"><tbody>
${row('status', statusBadge(view.status))}
${row('op', clip(info.opName ?? '-', 200))}
${row('priority', priorityText(view.priority))}
${row('created', info.created === undefined ? '-' : `${new Date(info.created).toISOString()} (${duration(now - info.created)} ago)`)}
${info.key ? row('key', `${clip(info.key.type, 200)} ${preview(info.key.key, 500)}`) : ''}
${info.autoClean ? row('auto-clean', 'yes: deleted once it finishes') : ''}
${internal ? row(INTERNAL_LABEL, clip(internal, 1_000)) : ''}
${row('holder', reservation ? html`${holderCell(reservation, holders)}, reservation <code>${reservation.uuid}</code>` : 'none')}
${row('deferred', view.deferUntil > now ? `until ${new Date(view.deferUntil).toISOString()} (in ${duration(view.deferUntil - now)})` : 'no')}
${row('retries', retries(view, now))}
${row('return value', info.returnValue === undefined ? 'none' : html`<code>${preview(info.returnValue)}</code>`)}
</tbody></table>
<h2>Steps, newest first (${stack.length})</h2>
${
  stack.length === 0
    ? html`<p class="muted">empty</p>`
    : html`<ol class="steps" reversed>${[...stack].reverse().map((s) => html`<li><strong>${clip(s.type, 200)}</strong> <code class="state">${preview(s.state)}</code></li>`)}</ol>`
}
${retryErrors(view)}
<h2>Error</h2>
${info.error ? errorBlock(info.error) : html`<p class="muted">none</p>`}
<h2>Undo errors (${undo.length})</h2>
${undo.length === 0 ? html`<p class="muted">none</p>` : html`<ol>${undo.slice(0, 20).map((e) => html`<li>${errorBlock(e)}</li>`)}</ol>`}
`;
}

/** What `fate show` prints for retries: the step, its attempts, and when the next one is due. */
function retries(view: FateView, now: number): string {
  const retry = view.info.retry;
  if (!retry) return 'none';
  const waiting = view.deferUntil > now && !FINISHED_STATUSES.has(view.status);
  return `${clip(retrySummary(retry), 500)}${waiting ? `; next attempt in ${duration(view.deferUntil - now)} (${new Date(view.deferUntil).toISOString()})` : ''}`;
}

/** The last errors kept of the retried step, oldest first. */
function retryErrors(view: FateView): Html | string {
  const errors = view.info.retry?.errors ?? [];
  if (errors.length === 0) return '';
  return html`<h2>Last errors of the retried step, oldest first (${errors.length})</h2>
<ol class="retry-errors">${errors.slice(0, 20).map((e) => html`<li>${clip(retryErrorText(e), 2_000)}</li>`)}</ol>`;
}

/** `Name: message`, a few frames of its stack, and its cause chain. */
function errorBlock(error: TxError, depth = 0): Html {
  const frames = String(error.stack ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('at ') && !l.includes('node:internal/'));
  return html`<div class="error"><p class="message"><strong>${clip(String(error.name ?? 'Error'), 200)}</strong>${error.code ? html` [${clip(String(error.code), 100)}]` : ''}: <span class="text">${clip(String(error.message ?? ''))}</span></p>
${frames.length ? html`<pre class="frames">${frames.slice(0, FRAMES).map((f) => `${clip(f, 300)}\n`)}${frames.length > FRAMES ? `… ${frames.length - FRAMES} more frames` : ''}</pre>` : ''}
${error.cause ? (depth < CAUSES ? html`<div class="cause">caused by ${errorBlock(error.cause, depth + 1)}</div>` : html`<p class="muted">… more causes</p>`) : ''}</div>`;
}
