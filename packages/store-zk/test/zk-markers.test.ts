import { touchMarker, ZkBatchMarkers, type ZkClient } from '@fate/store-zk/internal';
import { describe, expect, it } from 'vitest';

// Unit cases of the marker helpers over a scripted client: what a live ZooKeeper shows only
// under a storm of other clients (a marker that keeps vanishing) or a race (a batch marker
// deleted between its listing and its read).

/** A client whose every request is answered by `answer`, each request recorded. */
function scripted(answer: (op: string, path: string) => unknown) {
  const sent: string[] = [];
  const client = Object.fromEntries(
    ['create', 'set', 'get'].map((op) => [
      op,
      async (path: string) => {
        sent.push(`${op} ${path}`);
        // a runaway loop ends here, failing the case, instead of hanging its worker
        if (sent.length > 100) throw new Error('more than 100 requests');
        return answer(op, path);
      },
    ]),
  );
  return { client: client as unknown as ZkClient, sent };
}

describe('ZooKeeper markers', () => {
  it('gives up touching a marker that keeps vanishing after five attempts, unavailable', async () => {
    // the parent exists, the marker is created and gone again before the bump reaches it
    const { client, sent } = scripted((op) => (op === 'create' ? 'exists' : 'nonode'));
    await expect(touchMarker(client, '/r/a/m', '/r/a')).rejects.toMatchObject({
      code: 'FATE_STORE_UNAVAILABLE',
    });
    expect(sent.filter((s) => s === 'create /r/a/m')).toHaveLength(5);
  });

  it('reads the batch markers of a listing, leaving out one deleted since', async () => {
    const { client } = scripted((_, path) =>
      path.endsWith('~gone')
        ? undefined
        : { data: Buffer.from('0f8fad5b-d9cb-469f-a165-70867728950e\nend'), stat: {} },
    );
    const layout = { markerBucket: (b: string) => `/r/${b}` } as unknown as ConstructorParameters<
      typeof ZkBatchMarkers
    >[1];
    const read = await new ZkBatchMarkers(client, layout).read('0', ['~gone', '~kept']);
    expect(read.map((b) => [b.path, b.entries.map((e) => e.id), b.complete])).toEqual([
      ['/r/0/~kept', ['0f8fad5b-d9cb-469f-a165-70867728950e'], true],
    ]);
  });
});
