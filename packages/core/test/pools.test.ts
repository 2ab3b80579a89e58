import { describe, expect, it } from 'vitest';
import { groupsRun, Pools } from '../src/engine/pools.js';
import { code } from './test-steps.js';

describe('pools', () => {
  it('routes every op to exactly one pool, the rest to the catch-all', () => {
    const pools = new Pools(
      [
        { name: 'slow', ops: ['migrate', 'compact'], workers: 2 },
        { name: 'default', workers: 8 },
      ],
      false,
    );
    expect(pools.route('migrate')?.name).toBe('slow');
    expect(pools.route('checkout')?.name).toBe('default');
    expect(pools.route('')?.name).toBe('default');
    expect(pools.group).toBe('*');
  });

  it('refuses layouts that strand or double an op', () => {
    const bad = [
      [[{ name: 'a', ops: ['x'], workers: 1 }], false], // no catch-all, not declared
      [
        [
          { name: 'a', ops: ['x'], workers: 1 },
          { name: 'b', ops: ['x'], workers: 1 },
        ],
        true,
      ],
      [
        [
          { name: 'a', workers: 1 },
          { name: 'b', workers: 1 },
        ],
        false,
      ], // two catch-alls
      [
        [
          { name: 'a', ops: [], workers: 1 },
          { name: 'b', workers: 1 },
        ],
        false,
      ],
      [[{ name: 'a', workers: 0 }], false],
      [[{ name: '', workers: 1 }], false],
      [[{ name: 'a', workers: 1 }], true], // onlyPooledOps with a catch-all
      [[], false],
    ] as const;
    for (const [specs, only] of bad) {
      expect(
        code(() => new Pools(specs as never, only)),
        JSON.stringify(specs),
      ).toBe('FATE_INVALID_ARGUMENT');
    }
  });

  it('lets an engine run only its ops when it says so, and names its group by them', () => {
    const pools = new Pools([{ name: 'm', ops: ['migrate'], workers: 1 }], true);
    expect(pools.route('checkout')).toBeUndefined();
    expect(groupsRun([pools.group], 'migrate')).toBe(true);
    expect(groupsRun([pools.group], 'checkout')).toBe(false);
    expect(groupsRun(['*'], 'anything')).toBe(true);
  });
});
