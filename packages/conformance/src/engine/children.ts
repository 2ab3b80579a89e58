import {
  awaitChildren,
  type ChildOutcome,
  type FateId,
  type JsonValue,
  type Repo,
  Status,
  type StepType,
} from '@fate/core';
import { describe, expect, it } from 'vitest';
import type { ConformanceTarget } from '../fixture.js';
import { eventually } from '../store/context.js';
import { useEngines } from './engine-context.js';
import { type Recorder, script, scriptStepType } from './steps.js';

interface SpawnState {
  readonly children: ReadonlyArray<{ readonly name: string; readonly fail?: boolean }>;
  readonly continueOnFailure?: boolean;
}

/** The parent's first step: seeds its children and waits for them, then `Collect` runs. */
class Spawn implements Repo<Recorder> {
  readonly type = 'spawn';
  constructor(readonly s: SpawnState) {}
  isReady(): number {
    return 0;
  }
  call(): Repo<Recorder> {
    const children = this.s.children.map((c) => ({
      name: c.name,
      opName: 'child',
      step: script(1, { result: `made ${c.name}`, ...(c.fail ? { failCallAt: 1 } : {}) }),
    }));
    // the re-check is far past every wait below: only a child's engine can wake it in time
    return awaitChildren(children, new Collect({}), {
      recheckMs: 120_000,
      ...(this.s.continueOnFailure ? { continueOnFailure: true } : {}),
    });
  }
  undo(): void {}
  state(): JsonValue {
    return this.s as unknown as JsonValue;
  }
}

/** The step after the children: its return value is what it saw of them. */
class Collect implements Repo<Recorder> {
  readonly type = 'collect';
  constructor(readonly s: { readonly children?: Record<string, ChildOutcome> }) {}
  isReady(): number {
    return 0;
  }
  call(): undefined {
    return undefined;
  }
  undo(): void {}
  state(): JsonValue {
    return this.s as unknown as JsonValue;
  }
  returnValue(): JsonValue {
    const out: Record<string, string> = {};
    for (const [name, o] of Object.entries(this.s.children ?? {})) {
      out[name] = `${o.status} ${JSON.stringify(o.returnValue ?? o.error?.message ?? null)}`;
    }
    return out;
  }
}

const steps: StepType<Recorder>[] = [
  scriptStepType,
  { type: 'spawn', fromState: (s) => new Spawn(s as unknown as SpawnState) },
  {
    type: 'collect',
    fromState: (s) => new Collect(s as { children?: Record<string, ChildOutcome> }),
  },
];

/**
 * Child transactions (issue 25): a parent parks — no worker held, a stored deferral — until
 * the engine that finishes its last child wakes it, then sees their outcomes.
 */
export function childTests(target: ConformanceTarget): void {
  describe('child transactions', () => {
    const ctx = useEngines(target);

    it('parks a parent until its children finished, then its next step sees their results', async () => {
      const fate = await ctx.engine({ steps });
      const spawn = new Spawn({ children: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] });
      const { id } = await fate.seed(spawn, { opName: 'parent' });
      const result = await fate.waitForCompletion(id, { timeoutMs: 30_000 });
      expect(result.status).toBe(Status.SUCCESSFUL);
      expect(result.returnValue).toEqual({
        a: 'SUCCESSFUL "made a"',
        b: 'SUCCESSFUL "made b"',
        c: 'SUCCESSFUL "made c"',
      });
      // one transaction per child, keyed by parent and name: each ran its step once
      const children = await (await ctx.client()).list({ opName: 'child' });
      expect(children.map((c) => c.status)).toEqual([
        Status.SUCCESSFUL,
        Status.SUCCESSFUL,
        Status.SUCCESSFUL,
      ]);
      for (const c of children) expect(ctx.env.calls.get(`${c.id}:1`)).toBe(1);
    });

    it('fails and rolls back the parent when a child failed, unless it continues on failure', async () => {
      const fate = await ctx.engine({ steps });
      const children = [{ name: 'ok' }, { name: 'bad', fail: true }];
      const failed = await fate.seed(new Spawn({ children }), { opName: 'parent' });
      const r1 = await fate.waitForCompletion(failed.id, { timeoutMs: 30_000 });
      expect(r1.status).toBe(Status.FAILED);
      expect(r1.error?.code).toBe('FATE_CHILD_FAILED');
      expect(r1.error?.message).toMatch(/bad FAILED \(boom at 1\)/);
      const handled = await fate.seed(new Spawn({ children, continueOnFailure: true }), {
        opName: 'parent',
      });
      const r2 = await fate.waitForCompletion(handled.id, { timeoutMs: 30_000 });
      expect(r2.status).toBe(Status.SUCCESSFUL);
      expect(r2.returnValue).toEqual({ ok: 'SUCCESSFUL "made ok"', bad: 'FAILED "boom at 1"' });
    });

    it("wakes a parked parent from the engine that finished its child while the parent's engine is down", async () => {
      // the parent's engine runs only parents: it seeds the children, parks the parent, dies
      const { store, faults } = await ctx.faultyClient();
      const parents = await ctx.engine({
        store,
        steps,
        pools: [{ name: 'parents', ops: ['parent'], workers: 1 }],
        onlyPooledOps: true,
      });
      const { id } = await parents.seed(new Spawn({ children: [{ name: 'x' }, { name: 'y' }] }), {
        opName: 'parent',
      });
      const client = await ctx.client();
      const parked = async () => {
        const v = await client.read(id as FateId);
        return !v.reservation && v.deferUntil > client.now() && v.stack.length === 3;
      };
      await eventually('the parent is parked', parked, 15_000);
      faults.outage(600_000); // the parent's engine is gone, as the store sees it
      const other = await ctx.engine({ steps });
      const result = await other.waitForCompletion(id, { timeoutMs: 30_000 });
      expect(result.status).toBe(Status.SUCCESSFUL); // long before its 120 s re-check
      expect(result.returnValue).toEqual({ x: 'SUCCESSFUL "made x"', y: 'SUCCESSFUL "made y"' });
    });
  });
}
