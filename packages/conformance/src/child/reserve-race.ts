// Child process of the cross-process reservation race: reserves as many of the given ids
// as it can, starting at an agreed time, and writes the ids it won to a file.
import { readFileSync, writeFileSync } from 'node:fs';
import type { FateId } from '@fate/core';
import { openChildStore } from './open.js';

const [url, idsFile, outFile, startAt, instanceId, backendModule] = process.argv.slice(2);
const ids = JSON.parse(readFileSync(idsFile as string, 'utf8')) as FateId[];
const store = await openChildStore(url as string, backendModule || undefined, {
  instanceId: instanceId as string,
});
await new Promise((r) => setTimeout(r, Math.max(0, Number(startAt) - Date.now())));
const won: FateId[] = [];
const queue = [...ids];
await Promise.all(
  Array.from({ length: 8 }, async () => {
    for (let id = queue.pop(); id; id = queue.pop()) {
      if (await store.tryReserve(id)) won.push(id);
    }
  }),
);
writeFileSync(outFile as string, JSON.stringify(won));
await store.close();
