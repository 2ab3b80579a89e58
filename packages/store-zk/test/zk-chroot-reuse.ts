import { randomUUID } from 'node:crypto';
import type { StoreFixture } from '@fate/conformance';
import { parseZkUrl } from '@fate/store-zk';
import { removeZkTree, zooKeeperConnections } from '@fate/test-services';
import type ZooKeeper from 'zookeeper';
import { dataNodes, rawClient, removeTree, zkFixture } from './zk-fixture.js';

/**
 * Chroots one conformance file hands from case to case, emptied instead of removed and
 * made again. A fresh chroot is 295 znodes (the buckets are made at setup and never
 * removed) and removing it as many deletes: ~120 ms of CPU each way here, most of what a
 * ZooKeeper store case cost (~370 ms). Emptying is a read of each bucket and a delete of
 * what the case left. A chroot is handed on only when nothing can still write to it — no
 * client session is left on the file's servers besides this one (the file owns them; its
 * cases run one at a time, and every client, engine and child process of a case is closed
 * before `destroy`) — and emptying it succeeded, leaving only the skeleton, which the suites read and
 * write but never change.
 */
export class ZkChrootReuse {
  readonly #free: string[] = [];
  readonly #servers: Array<{ host: string; port: number }>;

  constructor(
    private readonly serviceUrl: string,
    private readonly credentials?: string,
  ) {
    this.#servers = parseZkUrl(`${serviceUrl}/x`)
      .connect.split(',')
      .map((hostPort) => {
        const at = hostPort.lastIndexOf(':');
        return { host: hostPort.slice(0, at), port: Number(hostPort.slice(at + 1)) };
      });
  }

  /** A chroot a finished case left, emptied, or a new name. */
  take(): string {
    return this.#free.pop() ?? `/fate-test-${randomUUID()}`;
  }

  /** Empties `chroot` for a later case, or removes it when it cannot be handed on. */
  async give(chroot: string): Promise<void> {
    const zk = await rawClient(this.serviceUrl, this.credentials);
    try {
      if ((await this.#onlyThisSession()) && (await emptied(zk, chroot))) this.#free.push(chroot);
      else await removeTree(zk, chroot);
    } finally {
      zk.close();
    }
  }

  /**
   * True once the servers hold one client session (this one) besides the `srvr` asking on
   * each; false if others stay 500 ms (a closed session leaves at once, but a client closed
   * on another server may be counted a moment longer).
   */
  async #onlyThisSession(): Promise<boolean> {
    for (let i = 0; i < 25; i++) {
      const counts = await Promise.all(
        this.#servers.map(({ host, port }) => zooKeeperConnections(host, port)),
      );
      const total = counts.reduce<number>((sum, n) => sum + (n ?? Number.NaN), 0);
      if (total === this.#servers.length + 1) return true;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return false;
  }
}

/**
 * Deletes everything below `chroot`'s skeleton; true when every delete succeeded (no other
 * session is left to write, so nothing can have come in meanwhile).
 */
async function emptied(zk: ZooKeeper, chroot: string): Promise<boolean> {
  try {
    const depth = (path: string) => path.split('/').length;
    const data = (await dataNodes(zk, chroot)).sort((a, b) => depth(b) - depth(a));
    for (const node of data) await removeZkTree(zk, node);
    return true;
  } catch {
    return false;
  }
}

/** A conformance factory on `service()` whose fixtures reuse chroots (see `ZkChrootReuse`). */
export function reusingZkFactory(
  service: () => Promise<{ readonly url: string }>,
  credentials?: string,
): () => Promise<StoreFixture> {
  let reuse: ZkChrootReuse | undefined;
  return async () => {
    const url = (await service()).url;
    reuse ??= new ZkChrootReuse(url, credentials);
    return zkFixture(url, credentials, reuse);
  };
}
