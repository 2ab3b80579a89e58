import type { FateView, TxError } from '@fate/core';
import { adminCommand, readExisting } from './admin-command.js';
import { duration, json, priorityText, table } from './format.js';
import { Holders } from './holders.js';
import { describeInternal, INTERNAL_LABEL } from './internal-record.js';
import { retryLines } from './retry-lines.js';

/** Frames of a recorded JS stack shown in text; `--json` has them all. */
const TRACE_FRAMES = 5;

/** `fate show ID`: everything the record says about one transaction. */
export const showCommand = adminCommand({
  name: 'show',
  id: true,
  usage: '[--json]',
  summary:
    'one transaction: status, priority, holder, deferral, steps, retries, error, return value',
  options: { json: { type: 'boolean' } },
  async run(store, args, id) {
    const view = await readExisting(store, id);
    const holders = await Holders.read(store);
    const alive = !!view.reservation && holders.current(view.reservation.lockId);
    const now = store.now();
    const { info } = view;
    if (args.values.json) {
      return json({
        id: view.id,
        status: view.status,
        ...(info.opName !== undefined ? { opName: info.opName } : {}),
        priority: view.priority,
        ...(info.created !== undefined ? { created: info.created, ageMs: now - info.created } : {}),
        ...(info.key ? { key: info.key } : {}),
        ...(info.autoClean ? { autoClean: true } : {}),
        holder: view.reservation ? { ...view.reservation, alive } : null,
        deferredUntil: view.deferUntil > now ? view.deferUntil : null,
        stack: [...view.stack].reverse(),
        error: info.error ?? null,
        retry: info.retry ?? null,
        ...(info.returnValue !== undefined ? { returnValue: info.returnValue } : {}),
        ...(info.internal !== undefined ? { internal: info.internal } : {}),
      });
    }
    return describe(view, holders, now);
  },
});

/** Width of the labels of `show`'s text output. */
const LABEL = 14;
const field = (label: string, value: string) => `${label.padEnd(LABEL)}${value}`;

function describe(view: FateView, holders: Holders, now: number): string {
  const { info, reservation, stack } = view;
  const created = info.created;
  const out = [
    field('id', view.id),
    field(
      'status',
      created === undefined
        ? `${view.status} (no status-change or creation time is stored)`
        : `${view.status} (no status-change time is stored; created ${duration(now - created)} ago)`,
    ),
    field('op', info.opName ?? '-'),
    field('priority', priorityText(view.priority)),
    field('created', created === undefined ? '-' : new Date(created).toISOString()),
  ];
  if (info.key) out.push(field('key', `${info.key.type} ${JSON.stringify(info.key.key)}`));
  if (info.autoClean) out.push(field('auto-clean', 'yes: deleted once it finishes'));
  const internal = describeInternal(info.internal);
  if (internal) out.push(field(INTERNAL_LABEL, internal));
  out.push(
    field(
      'holder',
      reservation ? `${holders.describe(reservation)}, reservation ${reservation.uuid}` : 'none',
    ),
    field(
      'deferred',
      view.deferUntil > now
        ? `until ${new Date(view.deferUntil).toISOString()} (in ${duration(view.deferUntil - now)})`
        : 'no',
    ),
    field('stack', stack.length ? `${stack.length} steps, newest first:` : 'empty'),
  );
  if (stack.length) {
    const steps = stack.map((step, i) => [`  ${i + 1}.`, step.type, JSON.stringify(step.state)]);
    out.push(table(steps.reverse()));
  }
  out.push(...retryLines(info.retry, field));
  out.push(...errorLines('error', info.error));
  const undo = info.error?.undoErrors ?? [];
  out.push(field('undo errors', undo.length ? `${undo.length}, oldest first:` : 'none'));
  undo.forEach((e, i) => {
    out.push(...errorLines(`  ${i + 1}.`, e));
  });
  const value = info.returnValue;
  out.push(field('return value', value === undefined ? 'none' : JSON.stringify(value)));
  return out.join('\n');
}

/** `label  Name: message` and the first frames of its recorded stack, indented. */
function errorLines(label: string, error: TxError | undefined): string[] {
  if (!error) return [field(label, 'none')];
  const frames = (error.stack ?? '')
    .split('\n')
    .map((line) => line.trim())
    // Node's own frames say nothing about the transaction; --json keeps them
    .filter((line) => line.startsWith('at ') && !line.includes('node:internal/'));
  const shown = frames.slice(0, TRACE_FRAMES).map((f) => field('', `  ${f}`));
  if (frames.length > TRACE_FRAMES) {
    shown.push(field('', `  … ${frames.length - TRACE_FRAMES} more frames (--json has them)`));
  }
  return [field(label, `${error.name ?? 'Error'}: ${error.message}`), ...shown];
}
