import { type FateId, isFateId } from '@fate/core';
import { duration } from '../../admin/format.js';
import { INTERNAL_LABEL, isInternalOp } from '../../admin/internal-record.js';
import { ROW_STATUSES, type RowStatus } from '../../admin/row-status.js';
import { clip } from '../clip.js';
import { type Html, html } from '../html.js';
import type { UiContext } from '../ui-context.js';
import { byLockId, deferral, holderCell, statusBadge } from './format-ui.js';

const HOLDERS = ['any', 'live', 'dead', 'none'] as const;
const DEFERRED = ['any', 'yes', 'no'] as const;
/** Minimum ages offered, ms (0 = any). */
const AGES: readonly [string, number][] = [
  ['any', 0],
  ['1 min', 60_000],
  ['10 min', 600_000],
  ['1 h', 3_600_000],
  ['1 d', 86_400_000],
];
const LIMITS = [25, 50, 100, 200] as const;

/** The list's filters as the query string gives them, checked. */
export interface ListParams {
  readonly statuses: readonly RowStatus[];
  readonly op: string;
  readonly holder: (typeof HOLDERS)[number];
  readonly deferred: (typeof DEFERRED)[number];
  readonly minAgeMs: number;
  readonly limit: number;
  readonly after?: FateId;
}

/** A query string value that is not one of the choices. */
export class BadQuery extends Error {}

function oneOf<T extends string>(
  value: string | undefined,
  choices: readonly T[],
  name: string,
): T {
  if (value === undefined || value === '') return choices[0] as T;
  if (!(choices as readonly string[]).includes(value))
    throw new BadQuery(`${name} must be one of ${choices.join(', ')}`);
  return value as T;
}

export function listParams(query: URLSearchParams): ListParams {
  const statuses = query
    .getAll('status')
    .flatMap((s) => s.split(','))
    .filter(Boolean)
    .map((s) => oneOf(s.toUpperCase(), ROW_STATUSES, 'status'));
  const age = query.get('age') ?? 'any';
  const minAge = AGES.find(([label]) => label === age);
  if (!minAge) throw new BadQuery(`age must be one of ${AGES.map(([l]) => l).join(', ')}`);
  const limit = Number(query.get('limit') ?? 50);
  if (!(LIMITS as readonly number[]).includes(limit))
    throw new BadQuery(`limit must be one of ${LIMITS.join(', ')}`);
  const after = query.get('after') ?? undefined;
  if (after !== undefined && !isFateId(after)) throw new BadQuery('after must be a transaction id');
  const op = query.get('op') ?? '';
  if (op.length > 500) throw new BadQuery('op is too long');
  return {
    statuses: [...new Set(statuses)],
    op,
    holder: oneOf(query.get('holder') ?? undefined, HOLDERS, 'holder'),
    deferred: oneOf(query.get('deferred') ?? undefined, DEFERRED, 'deferred'),
    minAgeMs: minAge[1],
    limit,
    ...(after ? { after } : {}),
  };
}

/** The query string of `p` with `changes`, for links. */
function href(p: ListParams, changes: { after?: FateId | undefined }): string {
  const q = new URLSearchParams();
  for (const s of p.statuses) q.append('status', s);
  if (p.op) q.set('op', p.op);
  if (p.holder !== 'any') q.set('holder', p.holder);
  if (p.deferred !== 'any') q.set('deferred', p.deferred);
  const age = AGES.find(([, ms]) => ms === p.minAgeMs)?.[0];
  if (age && age !== 'any') q.set('age', age);
  if (p.limit !== 50) q.set('limit', String(p.limit));
  if (changes.after) q.set('after', changes.after);
  const s = q.toString();
  return s ? `/tx?${s}` : '/tx';
}

/** The filter form (not reloaded, so typing is never interrupted). */
export function listForm(p: ListParams): Html {
  const select = <T extends string | number>(name: string, choices: readonly T[], value: T) =>
    html`<select name="${name}">${choices.map((c) => html`<option${c === value ? html` selected` : ''}>${c}</option>`)}</select>`;
  const age = AGES.find(([, ms]) => ms === p.minAgeMs)?.[0] ?? 'any';
  return html`<form method="get" action="/tx" class="filters">
<fieldset><legend>status</legend>${ROW_STATUSES.map(
    (s) =>
      html`<label><input type="checkbox" name="status" value="${s}"${p.statuses.includes(s) ? html` checked` : ''}> ${s}</label> `,
  )}</fieldset>
<label>op <input name="op" value="${p.op}" maxlength="500"></label>
<label>holder ${select('holder', HOLDERS, p.holder)}</label>
<label>deferred ${select('deferred', DEFERRED, p.deferred)}</label>
<label>older than ${select(
    'age',
    AGES.map(([l]) => l),
    age,
  )}</label>
<label>per page ${select('limit', LIMITS, p.limit as (typeof LIMITS)[number])}</label>
<button type="submit">Filter</button> <a href="/tx">clear</a>
</form>`;
}

/** The list's live part: one page of rows and the link to the next. */
export async function txList(ctx: UiContext, p: ListParams): Promise<Html> {
  const holders = byLockId(await ctx.store.instanceRecords());
  const page = await ctx.source.page({
    statuses: p.statuses,
    ...(p.op ? { opName: p.op } : {}),
    holder: p.holder,
    ...(p.deferred !== 'any' ? { deferred: p.deferred === 'yes' } : {}),
    minAgeMs: p.minAgeMs,
    ...(p.after ? { after: p.after } : {}),
    limit: p.limit,
    isLive: (lockId) => holders.get(lockId)?.current === true,
  });
  const now = ctx.store.now();
  const rows = page.rows.map(
    (r) => html`<tr data-id="${r.id}"><td><a href="/tx/${r.id}"><code>${r.id}</code></a></td>
<td>${statusBadge(r.shown)}</td><td>${clip(r.opName ?? '-', 80)}${internalMark(r.opName)}</td><td>${clip(r.top ?? '-', 80)}</td>
<td class="num">${r.stackDepth ?? ''}</td><td>${holderCell(r.reservation, holders)}</td>
<td>${deferral(r.deferUntil, now)}</td><td>${r.created === undefined ? '-' : duration(now - r.created)}</td>
<td class="corrupt">${r.corrupt ? clip(r.corrupt, 200) : ''}</td></tr>`,
  );
  return html`<table class="tx-list"><thead><tr><th>id</th><th>status</th><th>op</th><th>top step</th><th>steps</th><th>holder</th><th>deferred</th><th>age</th><th></th></tr></thead>
<tbody>${rows}</tbody></table>
<p class="paging">${page.rows.length} shown${p.after ? html` after <code>${p.after}</code> · <a href="${href(p, {})}">first page</a>` : ''}
${page.next ? html` · <a rel="next" href="${href(p, { after: page.next as FateId })}">next page →</a>` : html` · last page`}</p>`;
}

/** Marks one of the engine's own records (NEW by design, never run) as `fate show` labels it. */
function internalMark(opName: string | undefined): Html | string {
  if (!isInternalOp(opName)) return '';
  return html` <span class="internal" data-internal title="internal: one of fate's own records, NEW by design and never run">${INTERNAL_LABEL}</span>`;
}
