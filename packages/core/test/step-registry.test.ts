import { StepRegistry } from '@fate/core';
import { describe, expect, it } from 'vitest';

describe('step registry', () => {
  const registry = new StepRegistry<void>([
    {
      type: 'ok',
      fromState: (s) => {
        if (typeof s !== 'number') throw new Error('bad');
        return {
          type: 'ok',
          isReady: () => 0,
          call: () => undefined,
          undo: () => {},
          state: () => s,
        };
      },
    },
  ]);

  it('refuses an unknown type and a corrupt state with typed errors', () => {
    expect(() => registry.deserialize({ type: 'nope', state: 1 })).toThrow(
      expect.objectContaining({ code: 'FATE_UNKNOWN_STEP' }),
    );
    expect(() => registry.deserialize({ type: 'ok', state: 'x' })).toThrow(
      expect.objectContaining({ code: 'FATE_CORRUPT_DATA' }),
    );
    expect(registry.serialize(registry.deserialize({ type: 'ok', state: 3 }))).toEqual({
      type: 'ok',
      state: 3,
    });
    expect(() => registry.register({ type: 'ok', fromState: () => ({}) as never })).toThrow(
      TypeError,
    );
  });
});
