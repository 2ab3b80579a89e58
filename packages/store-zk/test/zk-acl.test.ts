import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@fate/conformance';
import { type FatesStore, openStore } from '@fate/core';
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

const OWNER = 'fate-owner:s3cret-Pa55';
const OTHER = 'someone-else:other-pw';
const NOAUTH = -102;
const ALL = 31;
const READ = 1;

const digestId = (credentials: string) => {
  const user = credentials.slice(0, credentials.indexOf(':'));
  return `${user}:${createHash('sha1').update(credentials).digest('base64')}`;
};

/** The result code of one native request of a raw client (the promise API hides it). */
function rc(call: (cb: (rc: number) => void) => void): Promise<number> {
  return new Promise((resolve) => call((code) => resolve(code)));
}

/** A node's ACL (the promise API answers `[acl, stat]`). */
async function aclOf(zk: ZooKeeper, path: string): Promise<unknown> {
  return ((await zk.get_acl(path)) as unknown as [unknown, unknown])[0];
}

/** Every node under `path` (itself included), parents first. */
async function tree(zk: ZooKeeper, path: string): Promise<string[]> {
  const out = [path];
  for (const child of await zk.get_children(path, false)) {
    out.push(...(await tree(zk, `${path}/${child}`)));
  }
  return out;
}

describe('ZooKeeper digest auth and ACLs', () => {
  const zk = useZooKeeper();

  /** A fresh chroot, its authenticated URL, and raw clients as the owner, anonymous and another identity. */
  const secured = async (params = '') => {
    const chroot = `/fate-acl-${randomUUID()}`;
    const owner = await rawClient(zk.service.url, OWNER);
    const other = await rawClient(zk.service.url, OTHER);
    zk.cleanup.push(async () => {
      await removeTree(owner, chroot);
      owner.close();
      other.close();
    });
    const url = `${withCredentials(`${zk.service.url}${chroot}`, OWNER)}${params}`;
    const open = async (): Promise<FatesStore> => {
      const store = await openStore(url, { instanceId: 'acl' });
      zk.cleanup.push(() => store.close());
      return store;
    };
    return { chroot, url, owner, other, open };
  };

  /** A store with data in every kind of node: records, markers of both kinds, batches, liveness. */
  const populate = async (store: FatesStore) => {
    await store.registerInstance();
    const { id } = await store.seed({ step: step(), opName: 'op' });
    await store.seedMany([1, 2, 3].map(() => ({ step: step(), opName: 'many' })));
    await store.create();
    const held = await store.tryReserve(id);
    expect(held).toBeDefined();
  };

  it('gives every node it creates all rights for its identity only, so no one else can read, create, change or delete anything', async () => {
    const s = await secured();
    await populate(await s.open());
    const nodes = await tree(s.owner, s.chroot);
    expect(nodes.length).toBeGreaterThan(300);
    const acls = await Promise.all(nodes.map((n) => aclOf(s.owner, n)));
    const expected = [{ perms: ALL, scheme: 'digest', auth: digestId(OWNER) }];
    for (const [i, acl] of acls.entries()) expect(acl, nodes[i]).toEqual(expected);

    const anonymous = zk.raw;
    for (const client of [anonymous, s.other]) {
      const n = client.native;
      for (const node of nodes) {
        expect(await rc((cb) => n.a_get(node, false, cb)), `get ${node}`).toBe(NOAUTH);
        expect(await rc((cb) => n.a_set(node, 'x', -1, cb)), `set ${node}`).toBe(NOAUTH);
        expect(
          await rc((cb) => n.a_create(`${node}/evil`, '', 0, cb)),
          `create under ${node}`,
        ).toBe(NOAUTH);
        const open = [{ perm: ALL, scheme: 'world', auth: 'anyone' }];
        expect(await rc((cb) => n.a_set_acl(node, -1, open, cb)), `setACL ${node}`).toBe(NOAUTH);
        // deleting the chroot itself is judged by its parent's ACL (not fate's): it is not empty
        if (node !== s.chroot) {
          expect(await rc((cb) => n.a_delete_(node, -1, cb)), `delete ${node}`).toBe(NOAUTH);
        }
      }
    }
    // nothing changed: the owner's tree is the same
    expect(await tree(s.owner, s.chroot)).toEqual(nodes);
  });

  it('lets anyone read, and still no one change, with worldRead=1', async () => {
    const s = await secured('?worldRead=1');
    await populate(await s.open());
    const nodes = await tree(s.owner, s.chroot);
    const [record] = nodes.filter((n) => /\/txs\/[0-9a-f]{2}\/./.test(n));
    expect(await aclOf(s.owner, record as string)).toEqual([
      { perms: ALL, scheme: 'digest', auth: digestId(OWNER) },
      { perms: READ, scheme: 'world', auth: 'anyone' },
    ]);
    const n = zk.raw.native;
    for (const node of nodes) {
      expect(await rc((cb) => n.a_get(node, false, cb)), `get ${node}`).toBe(0);
      expect(await rc((cb) => n.a_set(node, 'x', -1, cb)), `set ${node}`).toBe(NOAUTH);
      expect(await rc((cb) => n.a_create(`${node}/evil`, '', 0, cb))).toBe(NOAUTH);
    }
  });

  it('works as a second client of the same identity, and reads credentials from a file', async () => {
    const s = await secured();
    const first = await s.open();
    const { id } = await first.seed({ step: step(), opName: 'op' });
    const dir = mkdtempSync(join(tmpdir(), 'fate-zk-auth-'));
    zk.cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'zk-credentials');
    writeFileSync(file, `${OWNER}\n`, { mode: 0o600 });
    const second = await openStore(
      `${zk.service.url}${s.chroot}?authFile=${encodeURIComponent(file)}`,
    );
    zk.cleanup.push(() => second.close());
    const held = await second.tryReserve(id);
    expect(held).toBeDefined();
    await held?.unreserve();
  });

  it('refuses a chroot another identity owns, or one it reaches without credentials, with FATE_STORE_CONFIG', async () => {
    const s = await secured();
    // the owner's store made the chroot; another identity and an anonymous client are refused
    await (await s.open()).close();
    const otherUrl = withCredentials(`${zk.service.url}${s.chroot}`, OTHER);
    for (const url of [otherUrl, `${zk.service.url}${s.chroot}`]) {
      const err = await rejection(openStore(url));
      expect(err.code).toBe('FATE_STORE_CONFIG');
      expect(err.message).toContain(s.chroot);
      expect(err.message).not.toContain('other-pw');
    }
    // a chroot an administrator made for the identity (no rights for anyone else) is used as is
    const adminMade = `${s.chroot}-admin`;
    zk.cleanup.push(() => removeTree(s.owner, adminMade));
    await s.other.create(adminMade, '', 0);
    const acl = [{ perm: ALL, scheme: 'digest', auth: digestId(OWNER) }];
    await rc((cb) => s.other.native.a_set_acl(adminMade, -1, acl, cb));
    const store = await openStore(withCredentials(`${zk.service.url}${adminMade}`, OWNER));
    zk.cleanup.push(() => store.close());
    const { id } = await store.seed({ step: step(), opName: 'op' });
    expect((await store.read(id)).status).toBe('SUBMITTED');
  });

  it('authenticates again on the new session after its session expired', async () => {
    const s = await secured('?sessionTimeout=1000');
    const store = await s.open();
    await store.seed({ step: step(), opName: 'before' });
    // frozen past the session timeout: the server expires every session when it runs again
    await zk.service.pause(3_000);
    let after: string | undefined;
    await eventually(
      'a seed on a new session',
      async () => {
        after = (await store.seed({ step: step(), opName: 'after' }).catch(() => undefined))?.id;
        return after !== undefined;
      },
      20_000,
    );
    // the raw clients' sessions expired too: a new one, also for the cleanup
    const owner = await rawClient(zk.service.url, OWNER);
    zk.cleanup.push(async () => {
      await removeTree(owner, s.chroot);
      owner.close();
    });
    const record = (await tree(owner, s.chroot)).find((n) => n.endsWith(`/${after}`));
    expect(await aclOf(owner, record as string)).toEqual([
      { perms: ALL, scheme: 'digest', auth: digestId(OWNER) },
    ]);
  });
});
