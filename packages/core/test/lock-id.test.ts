import { instanceIdOf } from '@fate/core';
import { describe, expect, it } from 'vitest';

describe('lock ids', () => {
  it('reads the instance id of an incarnation', () => {
    expect(instanceIdOf('worker-1@9f2c3a4b5c6d')).toBe('worker-1');
    expect(instanceIdOf('a@b@c')).toBe('a@b');
    expect(instanceIdOf('plain')).toBe('plain');
  });
});
