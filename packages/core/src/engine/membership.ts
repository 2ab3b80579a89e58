import type { PartitionData } from '../partition.js';
import type { FatesStore } from '../store/fates-store.js';
import type { FateEvents } from './events.js';
import type { PartitionSource } from './options.js';

export interface MembershipOptions {
  readonly store: FatesStore;
  readonly source: PartitionSource;
  readonly heartbeatMs: number;
  readonly deadReservationCheckMs: number;
  readonly onEvent: <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => void;
  /** Called when this instance's share of the work changed. */
  readonly onChange: () => void;
}

/**
 * Keeps this instance live in the store, derives its partition, and — on the leader only
 * (the lowest live instance id) — clears reservations held by dead instances, so the
 * cleaner's scan of reservations runs once per check, not once per instance.
 */
export class Membership {
  readonly #o: MembershipOptions;
  #timer: NodeJS.Timeout | undefined;
  #partition: PartitionData | undefined;
  #lastCheck = 0;
  #running = false;
  #tick: Promise<void> = Promise.resolve();

  constructor(options: MembershipOptions) {
    this.#o = options;
  }

  async start(): Promise<void> {
    await this.#o.store.registerInstance();
    this.#running = true;
    await this.#beat();
    this.#schedule();
  }

  /** This instance's partition now; undefined while it has none. */
  async current(): Promise<PartitionData | undefined> {
    const source = this.#o.source;
    if (source === 'membership') return this.#partition;
    return typeof source === 'function' ? source() : source;
  }

  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#tick;
    await this.#o.store.unregisterInstance();
  }

  #schedule(): void {
    if (!this.#running) return;
    const period = Math.min(this.#o.heartbeatMs, this.#o.deadReservationCheckMs);
    this.#timer = setTimeout(() => {
      this.#tick = this.#beat().finally(() => this.#schedule());
    }, period);
  }

  async #beat(): Promise<void> {
    const { store } = this.#o;
    try {
      await store.heartbeat();
      const live = await store.liveInstances();
      const index = live.indexOf(store.instanceId);
      const partition = index < 0 ? undefined : { partition: index, total: live.length };
      if (this.#o.source === 'membership' && !samePartition(partition, this.#partition)) {
        this.#partition = partition;
        this.#o.onEvent('partition', { partition, live: live.length });
        this.#o.onChange();
      }
      const now = Date.now();
      if (live[0] === store.instanceId && now - this.#lastCheck >= this.#o.deadReservationCheckMs) {
        this.#lastCheck = now;
        const count = await store.clearDeadReservations();
        if (count > 0) {
          this.#o.onEvent('recovered', { count });
          this.#o.onChange();
        }
      }
    } catch (error) {
      this.#o.onEvent('warning', { message: 'liveness heartbeat failed', error });
    }
  }
}

function samePartition(a: PartitionData | undefined, b: PartitionData | undefined): boolean {
  return a?.partition === b?.partition && a?.total === b?.total;
}
