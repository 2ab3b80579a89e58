// Child transactions (issue 25): what awaitChildren refuses, its steps outside an engine, and
// what undoing it cancels.
// Every backend runs the engine cases in @fate/conformance (engine/children.ts).
import { describe, expect, it } from 'vitest';
import { BIND_SCOPE, type ScopedStep } from '../src/engine/child-scope.js';
import { childKey, childStepTypes } from '../src/engine/children.js';
import {
  awaitChildren,
  type ChildSpec,
  createFatesStore,
  type FateId,
  type FatesStore,
  type JsonValue,
  keyedFateId,
  MemoryBackend,
  type Repo,
  Status,
  StepRegistry,
} from '../src/index.js';
import { QuietStep } from './test-steps.js';

describe('awaitChildren', () => {
  const child = (name: string) => ({
    name,
    opName: 'op',
    step: new QuietStep('leaf', { leaf: true }),
  });
  const signal = new AbortController().signal;
  /** What the runner gives each step it runs: the store and steps, and wake-ups (none here). */
  const scopeOf = (store: FatesStore, steps = new StepRegistry()) => ({
    store,
    steps,
    wake: () => undefined,
    woken: () => undefined,
  });
  /** `step` given its scope, as the runner does, then called for transaction `id`. */
  const callScoped = (step: Repo, scope: ReturnType<typeof scopeOf>, id: FateId) => {
    (step as unknown as ScopedStep)[BIND_SCOPE](scope);
    return step.call(id, undefined, { signal });
  };

  it('refuses no children, duplicate or empty names and a bad recheckMs with FATE_INVALID_ARGUMENT', () => {
    const bad = expect.objectContaining({ name: 'TypeError', code: 'FATE_INVALID_ARGUMENT' });
    expect(() => awaitChildren([], new QuietStep('leaf', { leaf: true }))).toThrow(bad);
    expect(() =>
      awaitChildren([child('a'), child('a')], new QuietStep('leaf', { leaf: true })),
    ).toThrow(bad);
    expect(() => awaitChildren([child('')], new QuietStep('leaf', { leaf: true }))).toThrow(bad);
    // one bad name among good ones, and a name that is no string, fail the same check
    const unnamed = expect.objectContaining({ message: expect.stringMatching(/needs a name/) });
    for (const names of [
      ['a', ''],
      ['a', 42],
    ]) {
      const children = names.map((n) => child(n as string));
      expect(() => awaitChildren(children, new QuietStep('leaf', { leaf: true }))).toThrow(unnamed);
    }
    // the smallest recheck is allowed
    expect(
      awaitChildren([child('a')], new QuietStep('leaf', { leaf: true }), { recheckMs: 1 }).type,
    ).toBeTypeOf('string');
    expect(() =>
      awaitChildren([child('a')], new QuietStep('leaf', { leaf: true }), { recheckMs: 0 }),
    ).toThrow(bad);
  });

  it('is a step whose state is JSON, rebuilt by the engine from its type', () => {
    const step = awaitChildren([child('a'), child('b')], new QuietStep('leaf', { leaf: true }), {
      recheckMs: 1_000,
    });
    expect(step.type).toBe('fate:children');
    const state = JSON.parse(JSON.stringify(step.state()));
    expect(state).toEqual({
      children: [
        { name: 'a', opName: 'op', step: { type: 'leaf', state: { leaf: true } } },
        { name: 'b', opName: 'op', step: { type: 'leaf', state: { leaf: true } } },
      ],
      next: { type: 'leaf', state: { leaf: true } },
      continueOnFailure: false,
      recheckMs: 1_000,
    });
    const rebuilt = childStepTypes.find((t) => t.type === step.type)?.fromState(state);
    expect(rebuilt?.state()).toEqual(state);
  });

  it('keys each child by its parent and name', () => {
    const parent = keyedFateId({ type: 't', key: 'p' }) as FateId;
    expect(childKey(parent, 'a')).toEqual({ type: 'fate:child', key: `${parent}/a` });
    expect(keyedFateId(childKey(parent, 'a'))).not.toBe(keyedFateId(childKey(parent, 'b')));
  });

  it('says so when its steps run outside an engine', async () => {
    const step = awaitChildren([child('a')], new QuietStep('leaf', { leaf: true }));
    await expect(
      (async () =>
        step.call(keyedFateId({ type: 't', key: 'p' }), undefined, {
          signal: new AbortController().signal,
        }))(),
    ).rejects.toThrow(/only inside a Fate engine/);
  });

  it("seeds each child at its own priority, or at the parent's when it names none", async () => {
    const store = await createFatesStore(new MemoryBackend());
    const { id: parent } = await store.seed({
      step: { type: 'leaf', state: { leaf: true } },
      opName: 'parent',
      priority: 3,
    });
    const scope = scopeOf(store);
    const step = awaitChildren(
      [{ ...child('own'), priority: -2 }, child('inherits'), { ...child('zero'), priority: 0 }],
      new QuietStep('leaf', { leaf: true }),
    );
    await callScoped(step, scope, parent);
    const priority = async (name: string) =>
      (await store.read(keyedFateId(childKey(parent, name)) as FateId)).priority;
    expect(await priority('own')).toBe(-2);
    expect(await priority('inherits')).toBe(3);
    // a priority of 0 is the child's own, not a missing one
    expect(await priority('zero')).toBe(0);

    // every child inheriting; and none, where the parent is not read at all
    const { id: low } = await store.seed({
      step: { type: 'leaf', state: { leaf: true } },
      opName: 'parent',
      priority: -4,
    });
    const seedFrom = (parentId: FateId, children: ChildSpec[]) =>
      callScoped(awaitChildren(children, new QuietStep('leaf', { leaf: true })), scope, parentId);
    await seedFrom(low, [child('a'), child('b')]);
    const inherited = async (name: string) =>
      (await store.read(keyedFateId(childKey(low, name)) as FateId)).priority;
    expect([await inherited('a'), await inherited('b')]).toEqual([-4, -4]);
    const reads: FateId[] = [];
    const read = store.read.bind(store);
    store.read = (id) => {
      reads.push(id);
      return read(id);
    };
    await seedFrom(parent, [{ ...child('named'), priority: 1 }]);
    expect(reads).toEqual([]);
  });

  it('hands the outcomes to a next step with an object state, and refuses any other state', async () => {
    const store = await createFatesStore(new MemoryBackend());
    const scope = scopeOf(
      store,
      new StepRegistry([{ type: 'leaf', fromState: (state) => new QuietStep('leaf', state) }]),
    );
    const waitAfter = async (parentKey: string, next: JsonValue) => {
      const parent = keyedFateId({ type: 't', key: parentKey }) as FateId;
      const seeds = awaitChildren([child('a')], new QuietStep('leaf', next), {
        continueOnFailure: true,
      });
      const wait = (await callScoped(seeds, scope, parent)) as Repo;
      return { parent, wait };
    };
    const good = await waitAfter('good', { kept: 1 });
    const next = await callScoped(good.wait, scope, good.parent);
    expect(next?.state()).toEqual({
      kept: 1,
      children: { a: { id: keyedFateId(childKey(good.parent, 'a')), status: Status.SUBMITTED } },
    });
    for (const [key, bad] of [
      ['text', 'text'],
      ['null', null],
      ['array', [1]],
    ] as const) {
      const { parent, wait } = await waitAfter(key, bad as JsonValue);
      await expect(callScoped(wait, scope, parent)).rejects.toMatchObject({
        code: 'FATE_INVALID_ARGUMENT',
        message: 'the step after awaitChildren needs an object state',
      });
    }
  });

  it('cancels, when undone, the children that have not begun and leaves the others', async () => {
    const store = await createFatesStore(new MemoryBackend());
    const parent = keyedFateId({ type: 't', key: 'parent' }) as FateId;
    const scope = scopeOf(store);
    const step = awaitChildren(
      [child('waiting'), child('running')],
      new QuietStep('leaf', { leaf: true }),
    );
    // its call seeds both children; the engine would run 'running' meanwhile
    const wait = (await callScoped(step, scope, parent)) as Repo;
    (wait as unknown as ScopedStep)[BIND_SCOPE](scope);
    const [waiting, running] = ['waiting', 'running'].map((n) => keyedFateId(childKey(parent, n)));
    const held = await store.tryReserve(running as FateId, { start: true });
    await held?.unreserve();
    await wait.undo(parent, undefined, { signal });
    expect((await store.read(waiting as FateId)).status).toBe(Status.FAILED);
    expect((await store.read(waiting as FateId)).info.error?.message).toBe('cancelled');
    expect((await store.read(running as FateId)).status).toBe(Status.IN_PROGRESS);
  });
});
