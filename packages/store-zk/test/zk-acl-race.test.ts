import { randomUUID } from 'node:crypto';
import { type FatesStore, openStore } from '@fate/core';
import { parseZkUrl, resolveZkConfig } from '@fate/store-zk';
import { ZkClient } from '@fate/store-zk/internal';
import { describe, expect, it } from 'vitest';
import type ZooKeeper from 'zookeeper';
import {
  rawClient,
  rejection,
  removeTree,
  step,
  useZooKeeper,
  withCredentials,
} from './zk-fixture.js';

// The window between fate's create of a node (the binding gives it the open ACL) and the
// setACL that restricts it, on a real server. A second client cannot be timed into that
// one round trip from outside, so the native layer of fate's own session is wrapped: its
// setACL is held until an intruder's setACL has been applied to the new node, then sent.

const OWNER = 'fate-owner:s3cret-Pa55';
const ALL = 31;
const OPEN = [{ perms: ALL, scheme: 'world', auth: 'anyone' }];

type SetAcl = (path: string, version: number, acl: unknown, cb: (rc: number) => void) => number;

/** A node's ACL and its version. */
async function aclOf(zk: ZooKeeper, path: string): Promise<{ acl: unknown; aversion: number }> {
  const [acl, stat] = (await zk.get_acl(path)) as unknown as [unknown, { aversion: number }];
  return { acl, aversion: stat.aversion };
}

/** Every node under `path` (itself included). */
async function tree(zk: ZooKeeper, path: string): Promise<string[]> {
  const out = [path];
  for (const child of await zk.get_children(path, false)) {
    out.push(...(await tree(zk, `${path}/${child}`)));
  }
  return out;
}

describe('ZooKeeper ACLs: the create/setACL window and nodes that exist', () => {
  const zk = useZooKeeper();

  /** A fresh open chroot and a fate client authenticated as OWNER on it. */
  const setUp = async () => {
    const chroot = `/fate-acl-race-${randomUUID()}`;
    const admin = await rawClient(zk.service.url);
    await admin.create(chroot, '', 0);
    const url = withCredentials(`${zk.service.url}${chroot}`, OWNER);
    const client = new ZkClient(resolveZkConfig(parseZkUrl(url)));
    zk.cleanup.push(async () => {
      await client.close();
      await removeTree(admin, chroot);
      admin.close();
    });
    const native = (await client.session()).native as unknown as { a_set_acl: SetAcl };
    return { chroot, admin, client, native, original: native.a_set_acl.bind(native) };
  };

  it('fails with FATE_STORE_CONFIG when another client changes the ACL between its create and its setACL', async () => {
    const { chroot, admin, client, native, original } = await setUp();
    const path = `${chroot}/node`;
    native.a_set_acl = (p, version, acl, cb) => {
      // the intruder keeps the new node open for itself (ACL version 1), then fate's goes out
      const intrude = () =>
        admin.native.a_set_acl(
          p,
          -1,
          [{ perm: ALL, scheme: 'world', auth: 'anyone' }],
          (rc: number) => (rc === -101 ? setTimeout(intrude, 5) : original(p, version, acl, cb)),
        );
      intrude();
      return 0;
    };
    const err = await rejection(client.create(path, '', 0));
    expect(err.code).toBe('FATE_STORE_CONFIG');
    expect(err.message).toContain(path);
    expect(err.message).toMatch(/another client changed the ACL/);
    expect(err.message).not.toContain('s3cret');
  });

  it('takes a setACL that came first with fate’s own ACL (its setACL for an earlier node at that path)', async () => {
    const { chroot, client, native, original } = await setUp();
    const owner = await rawClient(zk.service.url, OWNER);
    zk.cleanup.push(async () => owner.close());
    const path = `${chroot}/node`;
    native.a_set_acl = (p, version, acl, cb) => {
      // another client of this identity sets the same ACL first (ACL version 1), as a
      // setACL meant for a node deleted and created again at this path lands on this one
      native.a_set_acl = original;
      owner.native.a_set_acl(p, -1, acl, (rc: number) =>
        rc === 0 ? original(p, version, acl, cb) : cb(rc),
      );
      return 0;
    };
    expect(await client.create(path, '', 0)).toBe('ok');
    const { acl, aversion } = await aclOf(owner, path);
    expect(aversion).toBe(1);
    expect(acl).toEqual([
      { perms: ALL, scheme: 'digest', auth: expect.stringMatching(/^fate-owner:/) },
    ]);
  });

  it('sets the ACL of a node whose setACL answer was lost when the create is repeated', async () => {
    const { chroot, admin, client, native, original } = await setUp();
    const owner = await rawClient(zk.service.url, OWNER);
    zk.cleanup.push(async () => owner.close());
    const path = `${chroot}/node`;
    native.a_set_acl = () => -4; // CONNECTIONLOSS: the setACL was not sent
    expect((await rejection(client.create(path, '', 0))).code).toBe('FATE_STORE_UNAVAILABLE');
    expect((await aclOf(admin, path)).acl).toEqual(OPEN);
    native.a_set_acl = original;
    expect(await client.create(path, '', 0)).toBe('exists');
    // read as the owner: getACL needs a right the anonymous client no longer has
    expect((await aclOf(owner, path)).acl).toEqual([
      { perms: ALL, scheme: 'digest', auth: expect.stringMatching(/^fate-owner:/) },
    ]);
  });

  it('leaves the ACL of every node of an open store alone when opened with credentials, even when it sets the tree up again', async () => {
    const chroot = `/fate-acl-open-${randomUUID()}`;
    const admin = await rawClient(zk.service.url);
    zk.cleanup.push(async () => {
      await removeTree(admin, chroot);
      admin.close();
    });
    const open = async (url: string): Promise<FatesStore> => {
      const store = await openStore(url, { instanceId: 'acl' });
      zk.cleanup.push(() => store.close());
      return store;
    };
    const plain = await open(`${zk.service.url}${chroot}`);
    const { id } = await plain.seed({ step: step(), opName: 'op' });
    await plain.close();
    // without its clock node the tree is set up again at open (as an older version's tree,
    // or one whose setup was cut short): a create of every skeleton node that exists
    await admin.delete_(`${chroot}/clock`, -1);
    const before = await tree(admin, chroot);
    expect(before.length).toBeGreaterThan(100);

    const secured = await open(withCredentials(`${zk.service.url}${chroot}`, OWNER));
    expect((await secured.read(id)).status).toBe('SUBMITTED');
    await secured.close();
    // read as the owner, who may read a node's ACL whether it is open or fate's
    const owner = await rawClient(zk.service.url, OWNER);
    zk.cleanup.push(async () => owner.close());
    const acls = await Promise.all(before.map((n) => aclOf(owner, n)));
    for (const [i, { acl, aversion }] of acls.entries()) {
      expect({ acl, aversion }, before[i]).toEqual({ acl: OPEN, aversion: 0 });
    }
  });
});
