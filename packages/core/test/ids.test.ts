import { isFateId, keyedFateId, newFateId, parseFateId } from '@fate/core';
import { describe, expect, it } from 'vitest';

describe('ids', () => {
  it('makes canonical v4 ids and refuses malformed ones with a TypeError', () => {
    const id = newFateId();
    expect(isFateId(id)).toBe(true);
    expect(id[14]).toBe('4');
    expect(() => parseFateId(id.toUpperCase())).toThrow(TypeError);
    expect(() => parseFateId('x')).toThrow(TypeError);
  });

  it('derives the same keyed id for the same key, and different ones otherwise', () => {
    const a = keyedFateId({ type: 'table', key: 't1' });
    expect(keyedFateId({ type: 'table', key: 't1' })).toBe(a);
    expect(isFateId(a)).toBe(true);
    expect(keyedFateId({ type: 'table', key: 't2' })).not.toBe(a);
    // the type and key cannot be shifted into each other
    expect(keyedFateId({ type: 'ab', key: 'c' })).not.toBe(keyedFateId({ type: 'a', key: 'bc' }));
    expect(() => keyedFateId({ type: '', key: 'k' })).toThrow(TypeError);
  });
});
