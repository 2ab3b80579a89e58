import type { InstanceRecord } from '@fate/core';
import { PIPELINE_DEPTH, pipelined, type ZkClient } from './zk-client.js';
import { unavailable } from './zk-errors.js';
import type { ZkLayout } from './zk-layout.js';
import { millis } from './zk-native.js';

/** What a liveness node holds. */
interface Beat {
  readonly ttlMs: number;
  readonly state: string;
}

function decodeBeat(data: Buffer): Beat | undefined {
  try {
    const beat = JSON.parse(data.toString('utf8')) as Beat;
    return Number.isSafeInteger(beat?.ttlMs) && typeof beat.state === 'string' ? beat : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Liveness records: a persistent node `instances/l-<lockId>` per incarnation holding the
 * guard's opaque state and the ttl; its mtime, stamped by the server, is the time of the
 * last beat. Not an ephemeral node: the tombstone written at close must outlive the
 * session for its ttl, and an ephemeral node would vanish with it. Records past their ttl
 * by the servers' clock (mtime + ttl, against this client's estimate of that clock, which
 * is never ahead of it) are deleted by whoever lists them, conditionally on the version
 * seen, so a beat that lands meanwhile is never deleted.
 */
export class ZkLiveness {
  readonly #client: ZkClient;
  readonly #layout: ZkLayout;

  constructor(client: ZkClient, layout: ZkLayout) {
    this.#client = client;
    this.#layout = layout;
  }

  /** Creates or replaces the record: one `set`, or a create the first time. */
  async heartbeat(lockId: string, state: string, ttlMs: number): Promise<void> {
    const path = this.#layout.instance(lockId);
    const data = JSON.stringify({ ttlMs, state } satisfies Beat);
    for (let attempt = 0; attempt < 5; attempt++) {
      if (typeof (await this.#client.set(path, data, -1)) === 'object') return;
      // The first beat: create it; a beat that crossed a lister's deletion also lands here.
      if ((await this.#client.create(path, data, 0)) === 'ok') return;
    }
    throw unavailable(`${path} kept appearing and vanishing while the heartbeat wrote it`);
  }

  /** Every record within its ttl; those past it are deleted on the way. */
  async instances(): Promise<InstanceRecord[]> {
    const names = (await this.#client.children(this.#layout.instances)) ?? [];
    const mine = names.flatMap((name) => {
      const lockId = this.#layout.lockIdOf(name);
      return lockId === undefined ? [] : [{ lockId, path: `${this.#layout.instances}/${name}` }];
    });
    const got = await pipelined(mine, PIPELINE_DEPTH, (n) => this.#client.get(n.path));
    const now = this.#client.clock.now();
    const out: InstanceRecord[] = [];
    const expired: Array<{ path: string; version: number }> = [];
    mine.forEach(({ lockId, path }, i) => {
      const node = got[i];
      const beat = node && decodeBeat(node.data);
      if (!node || !beat) return;
      if (millis(node.stat.mtime) + beat.ttlMs > now) out.push({ lockId, state: beat.state });
      else expired.push({ path, version: node.stat.version });
    });
    // The records are gone from the answer either way; a failed delete is retried by the
    // next lister.
    await pipelined(expired, PIPELINE_DEPTH, (e) =>
      this.#client.delete(e.path, e.version).catch(() => undefined),
    );
    return out;
  }
}
