import { FateError, openStore } from '@fate/core';
import { describe, expect, it } from 'vitest';

describe('openStore', () => {
  it.each(['', 'nonsense', 'ftp://x', 'mysql://localhost/db'])(
    'refuses %j with FATE_BAD_URL',
    async (url) => {
      await expect(openStore(url)).rejects.toSatisfy(
        (e: unknown) => e instanceof FateError && e.code === 'FATE_BAD_URL',
      );
    },
  );

  it('opens memory stores, shared by name', async () => {
    const a = await openStore('memory:shared-test');
    const b = await openStore('memory:shared-test');
    const id = await a.create();
    expect((await b.read(id)).status).toBe('NEW');
    await a.close();
    await b.close();
  });
});
