import type { ZkClient } from './zk-client.js';
import { unavailable } from './zk-errors.js';
import type { ZkLayout } from './zk-layout.js';
import { CreateFlag } from './zk-native.js';
import { PIPELINE_DEPTH, pipelined } from './zk-records.js';

/**
 * Instance liveness: an ephemeral node per instance whose data is its lease expiry. Live =
 * the node exists (its session is alive) AND the lease has not run out, so an instance
 * that stops heartbeating is dead within its own timeout even while its session lives on,
 * and a process that dies is dead when its session expires.
 */
export class ZkLiveness {
  readonly #client: ZkClient;
  readonly #layout: ZkLayout;

  constructor(client: ZkClient, layout: ZkLayout) {
    this.#client = client;
    this.#layout = layout;
  }

  /**
   * Refreshes the lease, (re)creating the node when it is missing, as after a session
   * expiry, or when an older session of this client still owns it (it would vanish with
   * that session).
   */
  async heartbeat(instanceId: string, timeoutMs: number): Promise<void> {
    const path = this.#layout.instance(instanceId);
    const data = JSON.stringify({ expiresAt: Date.now() + timeoutMs });
    for (let attempt = 0; attempt < 5; attempt++) {
      const set = await this.#client.set(path, data, -1);
      if (typeof set === 'object') {
        if (set.createdInThisSession) return;
        await this.#client.delete(path, set.version);
      }
      if ((await this.#client.create(path, data, CreateFlag.EPHEMERAL)) === 'ok') return;
    }
    throw unavailable(`${path} kept changing while the heartbeat wrote it`);
  }

  async remove(instanceId: string): Promise<void> {
    await this.#client.delete(this.#layout.instance(instanceId), -1);
  }

  /** Instances whose node exists and whose lease runs past `now`. */
  async live(now: number): Promise<string[]> {
    const names = (await this.#client.children(this.#layout.instances)) ?? [];
    const leases = await pipelined(names, PIPELINE_DEPTH, (name) =>
      this.#client.get(`${this.#layout.instances}/${name}`),
    );
    const out: string[] = [];
    names.forEach((name, i) => {
      const id = this.#layout.instanceIdOf(name);
      const lease = leases[i];
      if (id !== undefined && lease && expiresAt(lease.data) > now) out.push(id);
    });
    return out;
  }
}

function expiresAt(data: Buffer): number {
  try {
    const value = (JSON.parse(data.toString('utf8')) as { expiresAt?: unknown }).expiresAt;
    return typeof value === 'number' ? value : 0;
  } catch {
    return 0;
  }
}
