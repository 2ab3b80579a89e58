import type { SimEvent } from './history.js';

/** From, to: simulated ms. */
export type Span = readonly [number, number];
export type StepEvent = Extract<SimEvent, { e: 'call' | 'undo' | 'ready' }>;

/** Each lock id's stretches of a valid lease, merged. */
export function leases(events: readonly SimEvent[], leaseMs: number): Map<string, Span[]> {
  const out = new Map<string, Span[]>();
  for (const e of events) {
    if (e.e !== 'beat' || !e.ok || e.gone || e.sent + leaseMs <= e.t) continue;
    const list = out.get(e.lockId) ?? [];
    list.push([e.t, e.sent + leaseMs]);
    out.set(e.lockId, list);
  }
  for (const [k, list] of out) out.set(k, merge(list));
  return out;
}

function merge(list: Span[]): Span[] {
  const sorted = [...list].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

export interface CallSpan {
  readonly lockId: string;
  readonly index: number;
  readonly from: number;
  readonly to: number;
}

/** Every call as a span from its beginning to its end (or the end of the run). */
export function callSpans(steps: readonly StepEvent[], end: number): Map<string, CallSpan[]> {
  const out = new Map<string, CallSpan[]>();
  const open = new Map<string, number[]>();
  const key = (e: StepEvent) => `${e.id} ${e.index} ${e.lockId}`;
  for (const e of steps) {
    if (e.e !== 'call') continue;
    const k = key(e);
    if (!e.end) {
      open.set(k, [...(open.get(k) ?? []), e.t]);
      continue;
    }
    const from = open.get(k)?.shift();
    if (from === undefined) continue;
    const list = out.get(e.id) ?? [];
    list.push({ lockId: e.lockId, index: e.index, from, to: e.t });
    out.set(e.id, list);
  }
  for (const [k, froms] of open) {
    const [id, index, lockId] = k.split(' ') as [string, string, string];
    const list = out.get(id) ?? [];
    for (const from of froms) list.push({ lockId, index: Number(index), from, to: end });
    out.set(id, list);
  }
  return out;
}
