import type {
  InstanceRecordView,
  LiveInstance,
  PoolLoad,
  RegisterOptions,
} from '../contract/liveness-types.js';
import { instanceIdOf } from '../contract/lock-id.js';
import type { BackendCaller } from './backend-caller.js';
import {
  decodeInstanceState,
  encodeInstanceState,
  LeaseObserver,
  poolsOf,
} from './lease-observer.js';

/**
 * One client's side of liveness: it writes its own liveness record (a beat counter, its
 * membership group, a tombstone at close) and judges everyone else's with a
 * `LeaseObserver`, by watching them renew on this process's monotonic clock.
 */
export class ClientLiveness {
  readonly #lockId: string;
  readonly #timeoutMs: number;
  readonly #backend: BackendCaller;
  readonly #observer: LeaseObserver;
  #beat = 0;
  #group: string | undefined;
  #load: RegisterOptions['load'];
  #registered = false;
  readonly #now: () => number;

  /** `now` is the store's clock (stamped on records for people reading them). */
  constructor(lockId: string, timeoutMs: number, backend: BackendCaller, now: () => number) {
    this.#now = now;
    this.#lockId = lockId;
    this.#timeoutMs = timeoutMs;
    this.#backend = backend;
    // An observer watching less often than every half timeout may have missed renewals
    // the store did not take: it starts afresh rather than judge on what it saw.
    this.#observer = new LeaseObserver(timeoutMs, timeoutMs / 2);
  }

  /** The lease observer judging every other client; `DeadHolders` asks it for verdicts. */
  get observer(): LeaseObserver {
    return this.#observer;
  }

  get registered(): boolean {
    return this.#registered;
  }

  /**
   * Records stay at least this long after their last write, and dead ones go after it:
   * observers judge a holder by watching it, so a record that is gone is only "not
   * renewing" — the ttl is housekeeping, not liveness.
   */
  get #ttlMs(): number {
    return 3 * this.#timeoutMs;
  }

  /**
   * The first beat. Unlike the periodic ones (a failed beat is followed by the next), it is
   * asked again after a failure or a lost reply, as the guard's reads are: one dropped
   * request must not fail an engine's start. Each attempt is a beat of its own (a new beat
   * number), so every beat the store took is a renewal to observers, as the protocol has it:
   * a repeat of the same state is none, and a holder judged from its last successful beat
   * (the simulation's invariant) could be cleared a lease early. The holder's own lease
   * counts from the first attempt's send (the caller's), so a repeat only shortens it.
   */
  async register(options: RegisterOptions = {}): Promise<void> {
    this.#group = options.group;
    this.#load = options.load;
    await this.#beatOnce('retried');
    this.#registered = true;
  }

  heartbeat(): Promise<void> {
    return this.#beatOnce('call');
  }

  async #beatOnce(how: 'call' | 'retried'): Promise<void> {
    const state = () =>
      encodeInstanceState({
        beat: ++this.#beat,
        timeoutMs: this.#timeoutMs,
        at: this.#now(),
        ...(this.#group !== undefined ? { group: this.#group } : {}),
        ...this.#pools(),
      });
    // If the store did not take ours, it may not have taken anyone's: every failed attempt
    // tells the observer (a repeat that succeeds does not undo that), and so does a beat
    // that got no answer in time.
    const interrupted = (err: unknown) => {
      this.#observer.interrupted();
      throw err;
    };
    await this.#backend[how]('heartbeat', (b) =>
      b.heartbeat(this.#lockId, state(), this.#ttlMs).catch(interrupted),
    ).catch(interrupted);
  }

  /** The engine's pools for its record; a provider that throws costs the listing, not the beat. */
  #pools(): { pools?: PoolLoad[] } {
    if (!this.#load) return {};
    try {
      const pools = poolsOf({ beat: 0, pools: this.#load() });
      return pools ? { pools: pools.map((p) => ({ ...p, name: p.name.slice(0, 64) })) } : {};
    } catch {
      return {};
    }
  }

  /** Writes the tombstone: observers judge this lock id gone at once. */
  async unregister(): Promise<void> {
    const state = encodeInstanceState({ beat: ++this.#beat, gone: true, at: this.#now() });
    await this.#backend.call('unregisterInstance', (b) =>
      b.heartbeat(this.#lockId, state, this.#ttlMs),
    );
    this.#registered = false;
  }

  async liveInstances(): Promise<LiveInstance[]> {
    const { sent } = await this.observe();
    return this.#observer.live(sent).map(({ lockId, group }) => ({
      lockId,
      instanceId: instanceIdOf(lockId),
      ...(group !== undefined ? { group } : {}),
    }));
  }

  /** `id` is a lock id, or an instance id standing for any of its incarnations. */
  async isAlive(id: string): Promise<boolean> {
    const live = await this.liveInstances();
    return live.some((i) => i.lockId === id || i.instanceId === id);
  }

  /**
   * Every liveness record as it reads now, for people: when each last wrote (store clock)
   * and whether that is within its timeout. Judging is `liveInstances`' job, not this.
   */
  async records(): Promise<InstanceRecordView[]> {
    const records = await this.#backend.retried('instances', (b) => b.instances());
    const now = this.#now();
    return records
      .map(({ lockId, state }) => {
        const s = decodeInstanceState(state);
        const timeoutMs = s?.timeoutMs ?? this.#timeoutMs;
        const ago = s?.at !== undefined ? Math.max(0, now - s.at) : undefined;
        return {
          lockId,
          instanceId: instanceIdOf(lockId),
          ...(s?.group !== undefined ? { group: s.group } : {}),
          gone: s?.gone === true,
          timeoutMs,
          ...(ago !== undefined ? { lastHeartbeatMsAgo: ago } : {}),
          current: s?.gone !== true && ago !== undefined && ago < timeoutMs,
          ...(poolsOf(s) ? { pools: poolsOf(s) } : {}),
        };
      })
      .sort((a, b) => (a.lockId < b.lockId ? -1 : a.lockId > b.lockId ? 1 : 0));
  }

  /**
   * Reads every liveness record and lets the observer see them. Returns when the read was
   * sent (what it shows is no older: judge by it) and when its reply came (a renewal it
   * shows happened no later: count from it). A read whose reply was lost is asked again;
   * `sent` stays the first attempt's, which the repeat's answer is no older than either.
   */
  async observe(): Promise<{ sent: number; at: number }> {
    const sent = performance.now();
    const records = await this.#backend.retried('liveInstances', (b) => b.instances());
    const at = performance.now();
    this.#observer.observe(records, at, sent);
    return { sent, at };
  }
}
