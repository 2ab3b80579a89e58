import type { FateLogger } from '@fate/core';
import { describe, expect, it } from 'vitest';
import { throttled } from '../src/engine/logger.js';

describe('logging', () => {
  it('writes the same warning at most once per interval, counting the rest', () => {
    const lines: Array<[object, string]> = [];
    const base: FateLogger = {
      error: () => undefined,
      warn: (f, m) => lines.push([f, m]),
      info: () => undefined,
      debug: () => undefined,
    };
    const logger = throttled(base, 60_000);
    for (let i = 0; i < 5; i++) logger.warn({}, 'store away');
    logger.warn({}, 'other');
    expect(lines.map(([, m]) => m)).toEqual(['store away', 'other']);
  });
});
