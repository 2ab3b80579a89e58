// The engine's step path as an application sees it: a 'step' event for each call begun, a
// 'retry' event for each retried failure, warnings with their transaction, and step calls and
// undos counted and timed by outcome (OpenTelemetry, read through a collecting reader). One
// engine on the memory backend in the simulation's virtual time, so durations are exact.

import { enterWorld, type World } from '@fate/conformance/simulation';
import {
  createFatesStore,
  dropMemoryNamespace,
  Fate,
  type JsonValue,
  MemoryBackend,
  type Repo,
  type RetryPolicy,
} from '@fate/core';
import { afterEach, expect, it } from 'vitest';
import { collect, meters, total } from './metrics-reader.js';

let world: World | undefined;
afterEach(() => {
  world?.leave();
  world = undefined;
});

/** A step of a chain: works `ms` (virtual), throws when `fails`, then hands on to `next`. */
interface Link {
  readonly type: string;
  readonly ms: number;
  readonly undoMs?: number;
  readonly fails?: boolean;
  readonly retries?: number;
  readonly timeoutMs?: number;
  readonly next?: Link;
}
class Chain implements Repo {
  constructor(readonly l: Link) {}
  get type(): string {
    return this.l.type;
  }
  get retry(): RetryPolicy | undefined {
    return this.l.retries ? { attempts: this.l.retries, backoffMs: 100, jitter: 0 } : undefined;
  }
  get timeoutMs(): number | undefined {
    return this.l.timeoutMs;
  }
  isReady(): number {
    return 0;
  }
  async call(): Promise<Chain | undefined> {
    await new Promise((r) => setTimeout(r, this.l.ms));
    if (this.l.fails) throw new Error(`${this.l.type} fails`);
    return this.l.next && new Chain(this.l.next);
  }
  async undo(): Promise<void> {
    await new Promise((r) => setTimeout(r, this.l.undoMs ?? 0));
  }
  state(): JsonValue {
    return this.l as unknown as JsonValue;
  }
}

it('reports each step call as an event, and counts and times calls and undos by outcome', async () => {
  world = enterWorld(27);
  const { reader, meterProvider } = meters();
  const ns = 'engine-metrics-steps';
  const store = await createFatesStore(new MemoryBackend(ns), { instanceId: 'metrics-3' });
  const events: [string, Record<string, unknown>][] = [];
  const fate = new Fate({
    store,
    env: {},
    steps: ['first', 'second', 'slow'].map((type) => ({
      type,
      fromState: (s: JsonValue) => new Chain(s as unknown as Link),
    })),
    meterProvider,
    onEvent: (type, e) => {
      if (type === 'step' || type === 'retry' || type === 'warning') events.push([type, { ...e }]);
    },
    logger: { error() {}, warn() {}, info() {}, debug() {} },
  });
  try {
    await fate.start();
    // first (10 ms) hands on to second, which fails both its attempts (30 ms each, one retry
    // 100 ms later); then both are undone, newest first (second's in 5 ms, first's in 20)
    const failing = new Chain({
      type: 'first',
      ms: 10,
      undoMs: 20,
      next: { type: 'second', ms: 30, undoMs: 5, fails: true, retries: 2 },
    });
    const { id } = await fate.seed(failing, { opName: 'chain' });
    const { id: slowId } = await fate.seed(new Chain({ type: 'slow', ms: 1_500, timeoutMs: 100 }), {
      opName: 'slow',
    });
    // a step whose own retry policy is not valid is not retried, and says so
    const { id: badId } = await fate.seed(
      new Chain({ type: 'slow', ms: 1, fails: true, retries: -1 }),
      { opName: 'bad-policy' },
    );
    await world.clock.tickAsync(3_000);
    expect((await fate.read(id)).status).toBe('FAILED');
    expect((await fate.read(slowId)).status).toBe('FAILED');
    expect((await fate.read(badId)).status).toBe('FAILED');
    await fate.shutdown();

    // a 'step' event for each call begun, none for the undo
    expect(events.filter(([t, e]) => t === 'step' && e.id === id)).toEqual([
      ['step', { id, type: 'first' }],
      ['step', { id, type: 'second' }],
      ['step', { id, type: 'second' }],
    ]);
    expect(
      events.some(
        ([t, e]) => t === 'warning' && e.id === badId && /not valid/.test(String(e.message)),
      ),
    ).toBe(true);
    const retries = events.filter(([t]) => t === 'retry');
    expect(retries.map(([, e]) => ({ ...e, error: String(e.error) }))).toEqual([
      { id, type: 'second', attempt: 1, deferMs: 100, error: 'Error: second fails' },
    ]);
    // the step that outran its timeout is reported against its own transaction
    expect(
      events.some(([t, e]) => t === 'warning' && e.id === slowId && /slow/.test(String(e.message))),
    ).toBe(true);

    const m = await collect(reader);
    const started = m.get('fate.steps.started');
    expect(total(started, { 'fate.step_type': 'first' })).toBe(2); // its call and its undo
    expect(total(started, { 'fate.step_type': 'second' })).toBe(3);
    const completed = m.get('fate.steps.completed');
    expect(total(completed, { 'fate.step_type': 'first', 'fate.outcome': 'ok' })).toBe(2);
    expect(total(completed, { 'fate.step_type': 'first', 'fate.outcome': 'error' })).toBe(0);
    expect(total(completed, { 'fate.step_type': 'second', 'fate.outcome': 'error' })).toBe(2);
    expect(total(completed, { 'fate.step_type': 'second', 'fate.outcome': 'ok' })).toBe(1);
    expect(total(m.get('fate.steps.retries'), { 'fate.step_type': 'second' })).toBe(1);
    expect(total(m.get('fate.steps.overdue'), { 'fate.step_type': 'slow' })).toBe(1);
    // durations in seconds, in virtual time: exact
    const seconds = (where: Record<string, unknown>) =>
      (m.get('fate.step.duration') ?? [])
        .filter((p) => Object.entries(where).every(([k, v]) => p.attributes[k] === v))
        .map((p) => p.value as { sum: number; count: number })
        .map((h) => [h.count, Math.round(h.sum * 1_000) / 1_000]);
    expect(seconds({ 'fate.step_type': 'first', 'fate.outcome': 'ok' })).toEqual([[2, 0.03]]);
    expect(seconds({ 'fate.step_type': 'second', 'fate.outcome': 'error' })).toEqual([[2, 0.06]]);
    expect(seconds({ 'fate.step_type': 'second', 'fate.outcome': 'ok' })).toEqual([[1, 0.005]]);
  } finally {
    await fate.shutdown().catch(() => undefined);
    await store.close();
    await meterProvider.shutdown();
    dropMemoryNamespace(ns);
  }
});
