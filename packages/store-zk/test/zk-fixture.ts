import { randomUUID } from 'node:crypto';
import type { StoreFixture } from '@fate/conformance';
import { type FatesStore, openStore } from '@fate/core';
import { createStoreBackend, parseZkUrl, type ZkBackend } from '@fate/store-zk';
import {
  openZkSession,
  removeZkTree,
  startZooKeeper,
  type ZooKeeperTestService,
} from '@fate/test-services';
import { afterAll, afterEach, beforeAll, vi } from 'vitest';
import ZooKeeper from 'zookeeper';

/**
 * A raw client of the `zookeeper` package, for looking behind the backend's back;
 * authenticated as `credentials` (`user:password`) when given.
 */
export async function rawClient(serviceUrl: string, credentials?: string): Promise<ZooKeeper> {
  const { connect } = parseZkUrl(`${serviceUrl}/x`);
  const zk = await openZkSession(ZooKeeper, { connect, response_counter_limit: 1_000_000 });
  if (credentials) {
    await new Promise<void>((resolve, reject) => {
      zk.add_auth('digest', credentials, (rc: number) =>
        rc === 0 ? resolve() : reject(new Error(`add_auth: ${rc}`)),
      );
    });
  }
  return zk;
}

/**
 * Every node below the skeleton of a chroot: the top nodes and their buckets
 * (`<chroot>/<top>/<bucket>`) are the skeleton; liveness records (`instances/l-…`) and
 * anything deeper are data. The buckets are read side by side (one session pipelines them).
 */
export async function dataNodes(zk: ZooKeeper, chroot: string): Promise<string[]> {
  const below = async (path: string, depth: number): Promise<string[]> => {
    const children = await zk.get_children(path, false);
    const nested = await Promise.all(
      children.map(async (child) => {
        const at = `${path}/${child}`;
        const data = depth >= 2 || (depth === 1 && path.endsWith('/instances'));
        return [...(data ? [at] : []), ...(await below(at, depth + 1))];
      }),
    );
    return nested.flat();
  };
  return below(chroot, 0);
}

/** Deletes `path` and everything under it, children first; cleanup: what fails is left. */
export async function removeTree(zk: ZooKeeper, path: string): Promise<void> {
  await removeZkTree(zk, path).catch(() => undefined);
}

/**
 * One conformance fixture: a fresh chroot `/fate-test-<uuid>` on the service; every
 * `backend()` is a new client with its own session; `corrupt` goes through an admin
 * backend on the same chroot; `destroy` removes the chroot (with `reuse`, it hands it on:
 * see zk-chroot-reuse.ts). With `credentials`
 * (`user:password`) every client, the raw ones included, authenticates as that identity.
 */
export async function zkFixture(
  serviceUrl: string,
  credentials?: string,
  reuse?: { take(): string; give(chroot: string): Promise<void> },
): Promise<StoreFixture> {
  const chroot = reuse ? reuse.take() : `/fate-test-${randomUUID()}`;
  const url = withCredentials(`${serviceUrl}${chroot}`, credentials);
  const admin = createStoreBackend(url);
  await admin.open();
  return {
    url,
    backend: () => createStoreBackend(url),
    corrupt: (id, field) => admin.corrupt(id, field),
    async leftovers() {
      // the skeleton: the top nodes and their (empty) buckets; anything else is data
      const zk = await rawClient(serviceUrl, credentials);
      try {
        return await dataNodes(zk, chroot);
      } finally {
        zk.close();
      }
    },
    async destroy() {
      await admin.close();
      if (reuse) return reuse.give(chroot);
      const zk = await rawClient(serviceUrl, credentials);
      try {
        await removeTree(zk, chroot);
      } finally {
        zk.close();
      }
    },
  };
}

/** `zk://host/…` with `user:password@` (percent-encoded) after the scheme, when given. */
export function withCredentials(url: string, credentials?: string): string {
  if (!credentials) return url;
  const at = credentials.indexOf(':');
  const user = encodeURIComponent(credentials.slice(0, at));
  const password = encodeURIComponent(credentials.slice(at + 1));
  return url.replace(/^zk:\/\//, `zk://${user}:${password}@`);
}

/** The error a promise rejects with; fails the test if it resolves. */
export async function rejection(p: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await p;
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error('expected a rejection');
}

/** The error a function throws; fails the test if it returns. */
export function syncRejection(fn: () => unknown): Error & { code?: string } {
  try {
    fn();
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error('expected a throw');
}

export const step = (type = 's', state: unknown = {}) =>
  ({ type, state }) as { type: string; state: never };

/**
 * A fresh chroot on the service; `backend()` and `store()` open clients on it. Everything
 * is registered in `cleanup`, run after each test.
 */
export function freshChroot(
  serviceUrl: string,
  raw: ZooKeeper,
  cleanup: Array<() => Promise<unknown>>,
  params = '',
) {
  const chroot = `/fate-test-${randomUUID()}`;
  const url = `${serviceUrl}${chroot}${params}`;
  cleanup.push(() => removeTree(raw, chroot));
  return {
    chroot,
    url,
    async backend(): Promise<ZkBackend> {
      const b = createStoreBackend(url);
      cleanup.push(() => b.close());
      await b.open();
      return b;
    },
    async store(instanceId?: string): Promise<FatesStore> {
      const s = await openStore(url, instanceId ? { instanceId } : {});
      cleanup.push(() => s.close());
      return s;
    },
  };
}

/** A new record as the guard would insert it (`op` beside it). */
export const newRecord = (status: string, info = '{}', op = 'op') =>
  ({ status, stack: '[]', info, op }) as never;

/**
 * One ZooKeeper for a test file and a raw client on it; `space()` gives a fresh chroot
 * whose clients and data are removed after each test (and mocks, such as a faked wall
 * clock, are restored).
 */
export function useZooKeeper() {
  const cleanup: Array<() => Promise<unknown>> = [];
  const zk = {} as { service: ZooKeeperTestService; raw: ZooKeeper };
  beforeAll(async () => {
    zk.service = await startZooKeeper();
    zk.raw = await rawClient(zk.service.url);
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => undefined);
  });
  afterAll(async () => {
    zk.raw?.close();
    await zk.service?.stop();
  });
  return {
    get service() {
      return zk.service;
    },
    get raw() {
      return zk.raw;
    },
    cleanup,
    space: (params = '') => freshChroot(zk.service.url, zk.raw, cleanup, params),
  };
}
