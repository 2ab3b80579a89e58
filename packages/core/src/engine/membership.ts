import type { FatesStore } from '../contract/fates-store.js';
import type { PoolLoad } from '../contract/liveness-types.js';
import type { FateId } from '../ids.js';
import { type PartitionData, partitionRange } from '../partition.js';
import { AgeOffSweep } from './age-off-sweep.js';
import type { FateEvents } from './events.js';
import type { Lease } from './lease.js';
import type { FateLogger } from './logger.js';
import type { PartitionSource } from './options.js';
import { samePartition } from './same-partition.js';

export interface MembershipOptions {
  readonly store: FatesStore;
  readonly source: PartitionSource;
  /** Engines of the same group split the id space between them (see `Fate` pools). */
  readonly group: string;
  /** The engine's pools now, written with every heartbeat for people to read. */
  readonly load: () => readonly PoolLoad[];
  readonly heartbeatMs: number;
  readonly deadReservationCheckMs: number;
  readonly reconcileMs: number;
  /** Age-off: the first engine sweeps this often, keeping finished ones this long. */
  readonly ageOff: { readonly everyMs: number; readonly retentionMs: number };
  readonly lease: Lease;
  readonly logger: FateLogger;
  readonly onEvent: <K extends keyof FateEvents>(type: K, event: FateEvents[K]) => void;
  /** Called when this instance's share of the work changed. */
  readonly onChange: () => void;
  /** Called with transactions that became runnable again here (cleared or released). */
  readonly onRecovered: (ids: FateId[]) => void;
}

/**
 * Keeps this instance live in the store and judges the others (heartbeat, then observe),
 * derives its partition, and clears dead holders' reservations in its own share of the id
 * space. Every engine cleans, each only its share, so recovery never waits for one leader
 * and the reservation listing costs the same in all whatever the number of engines; two
 * cleaners at once are harmless (each clear is conditional on the exact reservation).
 * Now and then it also releases reservations stored under its own lock id that none of
 * its workers holds (a lost reply, a store that lost a release).
 */
export class Membership {
  readonly #o: MembershipOptions;
  #timer: NodeJS.Timeout | undefined;
  #partition: PartitionData | undefined;
  #groups: string[] = [];
  #first = false;
  #lastCheck = Number.NEGATIVE_INFINITY;
  #lastReconcile = performance.now();
  readonly #ageOff: AgeOffSweep;
  #running = false;
  #tick: Promise<void> = Promise.resolve();
  /** The observation under way (peers, partition, sweeps), if any. */
  #observing: Promise<void> | undefined;

  constructor(options: MembershipOptions) {
    this.#o = options;
    this.#ageOff = new AgeOffSweep(options.store, options.ageOff, options.onEvent);
  }

  async start(): Promise<void> {
    const sentAt = performance.now();
    await this.#o.store.registerInstance({ group: this.#o.group, load: this.#o.load });
    this.#o.lease.renewed(sentAt);
    this.#running = true;
    await this.#beat(false);
    this.#schedule();
  }

  /** This instance's partition now; undefined while it has none. */
  async current(): Promise<PartitionData | undefined> {
    const source = this.#o.source;
    if (source === 'membership') return this.#partition;
    return typeof source === 'function' ? source() : source;
  }

  /** True while this engine sorts first among the live engines (it reports store-wide figures). */
  isFirst(): boolean {
    return this.#first;
  }

  /** The membership groups of the live engines, as last observed. */
  groups(): readonly string[] {
    return this.#groups;
  }

  /** Stops beating and writes this instance's tombstone: it leaves membership at once. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#tick;
    await this.#observing;
    await this.#ageOff.running;
    this.#o.lease.stop();
    await this.#o.store.unregisterInstance();
  }

  #schedule(): void {
    if (!this.#running) return;
    this.#timer = setTimeout(() => {
      this.#tick = this.#beat(true).finally(() => this.#schedule());
    }, this.#o.heartbeatMs);
  }

  async #beat(heartbeat: boolean): Promise<void> {
    const { store } = this.#o;
    if (heartbeat) {
      const sentAt = performance.now();
      try {
        await store.heartbeat();
        this.#o.lease.renewed(sentAt);
      } catch (error) {
        // Judging others needs our own heartbeats flowing: skip until they do again.
        this.#warn('liveness heartbeat failed', error);
        return;
      }
    }
    // The observation and its sweeps may take long (a listing asked again after lost
    // replies, each attempt with its own deadline): they must not hold up the next beat, or
    // a slow sweep lapses this engine's own lease. One at a time; a beat that finds one
    // under way leaves it be. At start the first one is awaited (the partition comes from it).
    if (this.#observing) return;
    const observing = this.#observe().finally(() => {
      this.#observing = undefined;
    });
    this.#observing = observing;
    if (!heartbeat) await observing;
  }

  async #observe(): Promise<void> {
    const { store } = this.#o;
    try {
      const live = await store.liveInstances();
      const engines = live.filter((i) => i.group !== undefined);
      this.#groups = [...new Set(engines.map((i) => i.group as string))];
      const peers = engines.filter((i) => i.group === this.#o.group);
      const index = peers.findIndex((i) => i.lockId === store.lockId);
      const partition = index < 0 ? undefined : { partition: index, total: peers.length };
      if (this.#o.source === 'membership' && !samePartition(partition, this.#partition)) {
        this.#partition = partition;
        this.#o.onEvent('partition', { partition, live: peers.length });
        this.#o.onChange();
      }
      const now = performance.now();
      const share = engines.findIndex((i) => i.lockId === store.lockId);
      this.#first = share === 0;
      if (share >= 0 && now - this.#lastCheck >= this.#o.deadReservationCheckMs) {
        this.#lastCheck = now;
        const range = partitionRange({ partition: share, total: engines.length });
        const cleared = await store.clearDeadReservations(range, { sweepStrays: true });
        if (cleared.length > 0) this.#recovered(cleared.map((c) => c.id));
      }
      if (this.#first) this.#ageOff.due(now);
      if (now - this.#lastReconcile >= this.#o.reconcileMs) {
        this.#lastReconcile = now;
        const orphans = await store.releaseOrphans();
        if (orphans.length > 0) {
          this.#o.logger.warn(
            { count: orphans.length },
            'released reservations this instance held without knowing (lost replies)',
          );
          this.#recovered(orphans.map((o) => o.id));
        }
      }
    } catch (error) {
      this.#warn('membership check failed', error);
    }
  }

  #recovered(ids: FateId[]): void {
    this.#o.onEvent('recovered', { count: ids.length, ids });
    this.#o.onRecovered(ids);
  }

  #warn(message: string, error: unknown): void {
    this.#o.onEvent('warning', { message, error });
  }
}
