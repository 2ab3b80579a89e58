import { FateError, FateErrorCode } from '@fate/core';
import { localNow, ZkClock } from './zk-clock.js';
import type { ResolvedZkConfig } from './zk-config.js';
import { ZkDeadlines } from './zk-deadlines.js';
import { failure, unavailable } from './zk-errors.js';
import {
  millis,
  type NativeZk,
  nativeZooKeeper,
  Rc,
  type RcCallback,
  type WatchCallback,
  type ZkStat,
} from './zk-native.js';

/** How often the freeze watchdog looks at the clock, ms. */
const WATCHDOG_MS = 100;

/**
 * One ZooKeeper session at a time, opened on demand. When the session ends (expired, or
 * the binding gave up on it) the next request opens a new one and `onNewSession` hooks
 * run, so watches can be set again; ephemeral nodes are recreated by their owners.
 * Every request is bounded by `operationTimeoutMs` and fails as `FATE_STORE_UNAVAILABLE`.
 *
 * A request made while a session is up is sent at once, before the call returns, so the
 * requests a caller makes one after the other reach the server, and are applied, in that
 * order (ZooKeeper keeps one session's order): a pipeline keeps the order of its parts.
 */
export class ZkClient {
  /** The servers' clock, estimated from the mtime of every `set` this client makes. */
  readonly clock = new ZkClock();
  readonly #config: ResolvedZkConfig;
  readonly #deadlines: ZkDeadlines;
  #zk: NativeZk | undefined;
  #opening: Promise<NativeZk> | undefined;
  #closed = false;
  #generation = 0;
  readonly #hooks = new Set<() => void>();
  #watchdog: NodeJS.Timeout | undefined;

  constructor(config: ResolvedZkConfig) {
    this.#config = config;
    this.#deadlines = new ZkDeadlines(config.operationTimeoutMs);
  }

  /** Increases with every new session. */
  get generation(): number {
    return this.#generation;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Runs `hook` after each new session after the first. */
  onNewSession(hook: () => void): () => void {
    this.#hooks.add(hook);
    return () => this.#hooks.delete(hook);
  }

  /** The connected session, opening one if there is none. */
  session(): Promise<NativeZk> {
    if (this.#closed) {
      return Promise.reject(new FateError(FateErrorCode.CLOSED, 'the ZooKeeper store is closed'));
    }
    if (this.#zk) return Promise.resolve(this.#zk);
    this.#opening ??= this.#open().finally(() => {
      this.#opening = undefined;
    });
    return this.#opening;
  }

  #open(): Promise<NativeZk> {
    const { connect, sessionTimeoutMs, connectTimeoutMs } = this.#config;
    const ZooKeeper = nativeZooKeeper();
    const zk = new ZooKeeper({
      connect,
      timeout: sessionTimeoutMs,
      // 0 silences the C client's own stderr log; failures reach callers as FateErrors.
      debug_level: 0,
      host_order_deterministic: false,
      // The binding closes a session after this many partial reads in a row; reading a
      // znode near 1 MB takes dozens, so its default of 10 kills healthy sessions. The
      // session and request timeouts bound a dead connection instead.
      response_counter_limit: 100_000,
    });
    return new Promise<NativeZk>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        zk.close();
        reject(unavailable(`no session with ${connect} within ${connectTimeoutMs} ms`));
      }, connectTimeoutMs);
      zk.on('close', () => {
        // The handle is dead now (expired, or given up by the binding): never use it again.
        if (this.#zk === zk) this.#zk = undefined;
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          reject(unavailable(`the session with ${connect} closed while opening`));
        }
      });
      zk.once('connect', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (this.#closed) {
          zk.close();
          reject(new FateError(FateErrorCode.CLOSED, 'the ZooKeeper store is closed'));
          return;
        }
        this.#zk = zk;
        this.#generation++;
        this.#watch();
        resolve(zk);
        if (this.#generation > 1) for (const hook of this.#hooks) hook();
      });
      try {
        zk.init({});
      } catch (cause) {
        settled = true;
        clearTimeout(timer);
        reject(unavailable(`cannot start a session with ${connect}`, cause));
      }
    });
  }

  /**
   * Watches for this process being frozen (stopped, swapped out, a long pause) for longer
   * than the session timeout: then the session is gone, and the handle is closed from
   * here, outside the binding's callbacks, before the C client finds the expiry itself.
   * The binding closes an expired handle from inside zookeeper_process(), which can abort
   * the process (SIGABRT in libuv); closing first avoids that path.
   */
  #watch(): void {
    if (this.#watchdog) return;
    let last = performance.now();
    this.#watchdog = setInterval(() => {
      const now = performance.now();
      const frozen = now - last;
      last = now;
      const zk = this.#zk;
      if (zk && frozen > this.#config.sessionTimeoutMs) {
        this.#zk = undefined;
        zk.close();
      }
    }, WATCHDOG_MS);
    this.#watchdog.unref();
  }

  /** Closes the session; its ephemeral nodes go at once. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#watchdog);
    const opening = this.#opening;
    const zk = this.#zk;
    this.#zk = undefined;
    zk?.close();
    await opening?.then((z) => z.close()).catch(() => undefined);
  }

  /**
   * Forgets a handle whose session is over even though no `close` event said so, so the
   * next request opens a new session instead of failing on the dead one forever.
   */
  #drop(zk: NativeZk): void {
    if (this.#zk !== zk) return;
    this.#zk = undefined;
    // Not from inside the binding's callback: close the handle once it has returned.
    setImmediate(() => zk.close());
  }

  /** Sends one request (at once when a session is up) and resolves with its result code. */
  #request<T extends unknown[]>(
    what: string,
    path: string,
    send: (zk: NativeZk, cb: RcCallback<T>) => number,
  ): Promise<{ rc: number; result: T }> {
    const zk = this.#zk;
    if (zk && !this.#closed) return this.#send(zk, what, path, send);
    return this.session().then((z) => this.#send(z, what, path, send));
  }

  #send<T extends unknown[]>(
    zk: NativeZk,
    what: string,
    path: string,
    send: (zk: NativeZk, cb: RcCallback<T>) => number,
  ): Promise<{ rc: number; result: T }> {
    return new Promise((resolve, reject) => {
      const answered = this.#deadlines.start(() => {
        const ms = this.#config.operationTimeoutMs;
        reject(unavailable(`${what} ${path}: no answer within ${ms} ms`));
      });
      let sent: number;
      try {
        sent = send(zk, (rc, _error, ...result) => {
          answered();
          if (rc === Rc.SESSIONEXPIRED) this.#drop(zk);
          resolve({ rc, result });
        });
      } catch (cause) {
        answered();
        reject(unavailable(`${what} ${path} could not be sent`, cause));
        return;
      }
      if (sent !== Rc.OK) {
        answered();
        if (sent === Rc.INVALIDSTATE) this.#drop(zk);
        reject(failure(what, path, sent));
      }
    });
  }

  /** Data and stat of a node; undefined when it does not exist. */
  async get(path: string): Promise<{ stat: ZkStat; data: Buffer } | undefined> {
    const { rc, result } = await this.#request<[ZkStat, Buffer]>('get', path, (zk, cb) =>
      zk.native.a_get(path, false, cb),
    );
    if (rc === Rc.NONODE) return undefined;
    if (rc !== Rc.OK) throw failure('get', path, rc);
    return { stat: result[0], data: result[1] ?? Buffer.alloc(0) };
  }

  /** Like `get`, leaving a one-shot data watch on the node (also when it does not exist yet). */
  async watchData(
    path: string,
    watcher: WatchCallback,
  ): Promise<{ stat: ZkStat; data: Buffer } | undefined> {
    const { rc, result } = await this.#request<[ZkStat, Buffer]>('watch', path, (zk, cb) =>
      zk.native.aw_get(path, watcher, cb),
    );
    if (rc === Rc.NONODE) return undefined;
    if (rc !== Rc.OK) throw failure('watch', path, rc);
    return { stat: result[0], data: result[1] ?? Buffer.alloc(0) };
  }

  /** Stat of a node; undefined when it does not exist. */
  async exists(path: string): Promise<ZkStat | undefined> {
    const { rc, result } = await this.#request<[ZkStat]>('exists', path, (zk, cb) =>
      zk.native.a_exists(path, false, cb),
    );
    if (rc === Rc.NONODE) return undefined;
    if (rc !== Rc.OK) throw failure('exists', path, rc);
    return result[0];
  }

  /** Child names; undefined when the node does not exist. */
  async children(path: string): Promise<string[] | undefined> {
    const { rc, result } = await this.#request<[string[]]>('list', path, (zk, cb) =>
      zk.native.a_get_children(path, false, cb),
    );
    if (rc === Rc.NONODE) return undefined;
    if (rc !== Rc.OK) throw failure('list', path, rc);
    return result[0] ?? [];
  }

  /** Creates a node: 'exists' when it already does, 'nonode' when its parent does not. */
  async create(
    path: string,
    data: Buffer | string,
    flags: number,
  ): Promise<'ok' | 'exists' | 'nonode'> {
    const { rc } = await this.#request<[string]>('create', path, (zk, cb) =>
      zk.native.a_create(path, data, flags, cb),
    );
    if (rc === Rc.OK) return 'ok';
    if (rc === Rc.NODEEXISTS) return 'exists';
    if (rc === Rc.NONODE) return 'nonode';
    throw failure('create', path, rc);
  }

  /**
   * Sets data if the node is at `version` (-1: any); the new stat, or why not. The new
   * stat's mtime calibrates `clock`.
   */
  async set(
    path: string,
    data: Buffer | string,
    version: number,
  ): Promise<ZkStat | 'badversion' | 'nonode'> {
    const sentAt = localNow();
    const { rc, result } = await this.#request<[ZkStat]>('set', path, (zk, cb) =>
      zk.native.a_set(path, data, version, cb),
    );
    if (rc === Rc.OK) {
      this.clock.sample(sentAt, millis(result[0].mtime));
      return result[0];
    }
    if (rc === Rc.BADVERSION) return 'badversion';
    if (rc === Rc.NONODE) return 'nonode';
    throw failure('set', path, rc);
  }

  /** Deletes a node if it is at `version` (-1: any). */
  async delete(
    path: string,
    version: number,
  ): Promise<'ok' | 'badversion' | 'nonode' | 'notempty'> {
    const { rc } = await this.#request<[]>('delete', path, (zk, cb) =>
      zk.native.a_delete_(path, version, cb),
    );
    if (rc === Rc.OK) return 'ok';
    if (rc === Rc.BADVERSION) return 'badversion';
    if (rc === Rc.NONODE) return 'nonode';
    if (rc === Rc.NOTEMPTY) return 'notempty';
    throw failure('delete', path, rc);
  }

  /** Creates `path` and its missing ancestors (persistent, empty). */
  async mkdirp(path: string): Promise<void> {
    let at = '';
    for (const part of path.split('/').slice(1)) {
      at += `/${part}`;
      await this.create(at, '', 0);
    }
  }
}
