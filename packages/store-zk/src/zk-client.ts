import { FateErrorCode, isFateError, mapLimit } from '@fate/core';
import type { ZkAuth } from './zk-auth.js';
import { localNow, ZkClock } from './zk-clock.js';
import type { ResolvedZkConfig } from './zk-config.js';
import { ZkDeadlines } from './zk-deadlines.js';
import { failure, unavailable } from './zk-errors.js';
import {
  millis,
  type NativeZk,
  Rc,
  type RcCallback,
  type WatchCallback,
  type ZkStat,
} from './zk-native.js';
import { ZkSession } from './zk-session.js';

/** Requests in flight at once by scans, listings and repairs (`pipelined`, see below). */
export const PIPELINE_DEPTH = 64;
/** `mapLimit`, named for what it does here: requests pipelined on one session. */
export const pipelined = mapLimit;

/**
 * The requests this backend makes, on one session at a time (`ZkSession`). Every request
 * is bounded by `operationTimeoutMs` and fails as `FATE_STORE_UNAVAILABLE`.
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
  readonly #session: ZkSession;

  constructor(config: ResolvedZkConfig) {
    this.#config = config;
    this.#deadlines = new ZkDeadlines(config.operationTimeoutMs);
    this.#session = new ZkSession(config);
  }

  /** The identity this client authenticates as, if any. */
  get auth(): ZkAuth | undefined {
    return this.#config.auth;
  }

  /** Increases with every new session. */
  get generation(): number {
    return this.#session.generation;
  }

  get closed(): boolean {
    return this.#session.closed;
  }

  /** Runs `hook` after each new session after the first (watches die with their session). */
  onNewSession(hook: () => void): () => void {
    return this.#session.onNewSession(hook);
  }

  /** The connected session, opening one if there is none. */
  session(): Promise<NativeZk> {
    return this.#session.get();
  }

  /** Ends the current session (a failed open); the next request opens another. */
  disconnect(): Promise<void> {
    return this.#session.disconnect();
  }

  /** Closes the session. Idempotent. */
  close(): Promise<void> {
    return this.#session.close();
  }

  /** Sends one request (at once when a session is up) and resolves with its result code. */
  #request<T extends unknown[]>(
    what: string,
    path: string,
    send: (zk: NativeZk, cb: RcCallback<T>) => number,
  ): Promise<{ rc: number; result: T }> {
    const zk = this.#session.current;
    if (zk) return this.#send(zk, what, path, send);
    return this.#session.get().then((z) => this.#send(z, what, path, send));
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
          if (rc === Rc.SESSIONEXPIRED) this.#session.drop(zk);
          resolve({ rc, result });
        });
      } catch (cause) {
        answered();
        reject(unavailable(`${what} ${path} could not be sent`, cause));
        return;
      }
      if (sent !== Rc.OK) {
        answered();
        if (sent === Rc.INVALIDSTATE) this.#session.drop(zk);
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

  /**
   * Creates a node: 'exists' when it already does, 'nonode' when its parent does not.
   *
   * With credentials, a `setACL` follows right behind the create on the same session:
   * the binding creates every node with the open ACL and takes no ACL argument, so the
   * node is world-writable only between those two requests. The `setACL` is conditional
   * on the ACL never having been set (`aversion` 0), so it also repairs a node whose
   * `setACL` was lost, when the create is repeated, and never touches a node set since.
   */
  async create(
    path: string,
    data: Buffer | string,
    flags: number,
  ): Promise<'ok' | 'exists' | 'nonode'> {
    const created = this.#request<[string]>('create', path, (zk, cb) =>
      zk.native.a_create(path, data, flags, cb),
    );
    const auth = this.#config.auth;
    const restricted = auth
      ? this.#request<[]>('setACL', path, (zk, cb) => zk.native.a_set_acl(path, 0, auth.acl(), cb))
      : undefined;
    // Both answers are awaited, so neither rejection goes unhandled.
    const [{ rc }, acl] = await Promise.all([created, restricted]);
    if (rc === Rc.OK || rc === Rc.NODEEXISTS) {
      const aclRc = acl?.rc ?? Rc.OK;
      // BADVERSION: the ACL was set already; NONODE: deleted meanwhile.
      if (aclRc !== Rc.OK && aclRc !== Rc.BADVERSION && aclRc !== Rc.NONODE) {
        // NOAUTH on an existing node: not ours to restrict; the create's answer stands.
        if (!(rc === Rc.NODEEXISTS && aclRc === Rc.NOAUTH)) throw failure('setACL', path, aclRc);
      }
      return rc === Rc.OK ? 'ok' : 'exists';
    }
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
      try {
        await this.create(at, '', 0);
      } catch (err) {
        // An ACL may refuse creating children where the node exists already: fine.
        if (!isFateError(err, FateErrorCode.STORE_CONFIG) || !(await this.exists(at))) throw err;
      }
    }
  }
}
