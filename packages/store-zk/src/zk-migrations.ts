import { FateError, FateErrorCode, isFateError } from '@fate/core';
import { PIPELINE_DEPTH, pipelined, type ZkClient } from './zk-client.js';
import { unavailable } from './zk-errors.js';
import { MARKER_BUCKETS, type ZkLayout } from './zk-layout.js';
import type { ZkRecords } from './zk-records.js';
import type { ZkReservationIndex } from './zk-reservation-index.js';

/**
 * Opens the store's tree: one `set` of the `clock` node, which calibrates the clock
 * estimate and proves the setup done. When it is missing (a new chroot, or one an older
 * version laid out), creates the chroot, the top nodes and every bucket, pipelined; moves
 * an older version's flat reservation markers into the buckets; and creates `clock` last.
 * Concurrent setups are harmless: every create tolerates an existing node.
 */
export async function openTree(
  client: ZkClient,
  layout: ZkLayout,
  records: ZkRecords,
  reserved: ZkReservationIndex,
): Promise<void> {
  try {
    if (typeof (await client.set(layout.clock, '', -1)) === 'object') return;
    await client.mkdirp(layout.root);
    // Parents come first in the list, and one session's requests apply in order.
    await pipelined(layout.skeleton, PIPELINE_DEPTH, (path) => client.create(path, '', 0));
    await adoptFlatMarkers(client, layout, records, reserved);
    await client.create(layout.clock, '', 0);
  } catch (err) {
    return refusedChroot(client, layout.root, err);
  }
  if (typeof (await client.set(layout.clock, '', -1)) !== 'object') {
    throw unavailable(`${layout.clock} vanished while the store was opened`);
  }
}

/**
 * Older versions kept one flat `reserved/<id>+<uuid>` marker per reservation. Those still
 * held get a bucketed marker named with their lock id (so the cleaners find them); every
 * flat marker is then deleted. Nothing else reads them.
 */
async function adoptFlatMarkers(
  client: ZkClient,
  layout: ZkLayout,
  records: ZkRecords,
  reserved: ZkReservationIndex,
): Promise<void> {
  const names = (await client.children(layout.reserved)) ?? [];
  const flat = names.filter((name) => !MARKER_BUCKETS.includes(name) && name.includes('+'));
  await pipelined(flat, PIPELINE_DEPTH, async (name) => {
    const id = name.slice(0, name.indexOf('+'));
    const held = /^[0-9a-f-]{36}$/.test(id) ? (await records.read(id))?.record.reservation : null;
    if (held && encodeURIComponent(held.uuid) === name.slice(id.length + 1)) {
      await reserved.touch(id, held);
    }
    await client.delete(`${layout.reserved}/${name}`, -1);
  });
}

/**
 * A chroot that exists already (made by an administrator, or another store) is used as
 * it is when its ACL lets this client's identity do what fate does there; a refusal
 * (ZNOAUTH) becomes one `FATE_STORE_CONFIG` naming the chroot and the identity. The ACL
 * itself is not read: the binding's getACL crashes the process on any answer but OK
 * (it frees the absent result), and a refused request says as much.
 */
async function refusedChroot(client: ZkClient, root: string, err: unknown): Promise<never> {
  if (!isFateError(err, FateErrorCode.STORE_CONFIG) || !(await client.exists(root))) throw err;
  const who = client.auth ? `the identity ${client.auth}` : 'a client without credentials';
  throw new FateError(
    FateErrorCode.STORE_CONFIG,
    `ZooKeeper: the chroot ${root} exists and its ACL refuses ${who} (${err.message}); fate ` +
      'needs read, write, create and delete there: use the credentials it was made with, ' +
      'another chroot, or have an administrator grant them (setAcl)',
    { cause: err },
  );
}
