// Child transactions (issue 25): what awaitChildren refuses, and its steps outside an engine.
// Every backend runs the engine cases in @fate/conformance (engine/children.ts).
import { describe, expect, it } from 'vitest';
import { childKey, childStepTypes } from '../src/engine/children.js';
import {
  awaitChildren,
  type FateId,
  type JsonValue,
  keyedFateId,
  type Repo,
} from '../src/index.js';

class Leaf implements Repo {
  readonly type = 'leaf';
  isReady(): number {
    return 0;
  }
  call(): undefined {
    return undefined;
  }
  undo(): void {}
  state(): JsonValue {
    return { leaf: true };
  }
}

describe('awaitChildren', () => {
  const child = (name: string) => ({ name, opName: 'op', step: new Leaf() });

  it('refuses no children, duplicate or empty names and a bad recheckMs with FATE_INVALID_ARGUMENT', () => {
    const bad = expect.objectContaining({ name: 'TypeError', code: 'FATE_INVALID_ARGUMENT' });
    expect(() => awaitChildren([], new Leaf())).toThrow(bad);
    expect(() => awaitChildren([child('a'), child('a')], new Leaf())).toThrow(bad);
    expect(() => awaitChildren([child('')], new Leaf())).toThrow(bad);
    expect(() => awaitChildren([child('a')], new Leaf(), { recheckMs: 0 })).toThrow(bad);
  });

  it('is a step whose state is JSON, rebuilt by the engine from its type', () => {
    const step = awaitChildren([child('a'), child('b')], new Leaf(), { recheckMs: 1_000 });
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
    const step = awaitChildren([child('a')], new Leaf());
    await expect(
      (async () =>
        step.call(keyedFateId({ type: 't', key: 'p' }), undefined, {
          signal: new AbortController().signal,
        }))(),
    ).rejects.toThrow(/only inside a Fate engine/);
  });
});
