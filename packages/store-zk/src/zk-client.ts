import { FateErrorCode, isFateError } from '@fate/core';
import type { ZkAuth } from './zk-auth.js';
import { localNow, ZkClock } from './zk-clock.js';
import type { ResolvedZkConfig } from './zk-config.js';
import { aclRaced, failure, isAclRace } from './zk-errors.js';
import { millis, type NativeZk, Rc, type WatchCallback, type ZkStat } from './zk-native.js';
import { ZkRequests } from './zk-requests.js';
import { ZkSession } from './zk-session.js';

export { PIPELINE_DEPTH, pipelined } from './zk-requests.js';

/** Unsettled paths remembered at most; a store that loses that many answers is rarely up. */
const MAX_UNSETTLED = 10_000;

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
  readonly #session: ZkSession;
  readonly #requests: ZkRequests;
  /** Paths whose create or `setACL` got no answer: their node may be this client's, unset. */
  readonly #unsettled = new Set<string>();

  constructor(config: ResolvedZkConfig) {
    this.#config = config;
    this.#session = new ZkSession(config);
    this.#requests = new ZkRequests(config, this.#session);
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

  /**
   * Runs `read` behind a `sync`, so it sees every write acknowledged, to any client, before
   * this call. A session's server answers reads from its own copy, and a follower may not
   * have applied yet what the leader already acknowledged to another client (a seed made
   * elsewhere read as absent, a closed holder still alive); the servers order one session's
   * requests, so the requests `read` sends after the `sync` are answered after it, at the
   * price of one request more, pipelined (not a round trip more). A `sync` that fails fails
   * the read: its requests may have gone to another session's server.
   */
  fresh<T>(read: () => Promise<T>): Promise<T> {
    const synced = this.#requests.request<[string]>('sync', '/', (zk, cb) =>
      zk.native.a_sync('/', cb),
    );
    const result = read();
    return Promise.all([synced, result]).then(([{ rc }, value]) => {
      if (rc !== Rc.OK) throw failure('sync', '/', rc);
      return value;
    });
  }

  /** Data and stat of a node; undefined when it does not exist. */
  async get(path: string): Promise<{ stat: ZkStat; data: Buffer } | undefined> {
    const { rc, result } = await this.#requests.request<[ZkStat, Buffer]>('get', path, (zk, cb) =>
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
    const { rc, result } = await this.#requests.request<[ZkStat, Buffer]>('watch', path, (zk, cb) =>
      zk.native.aw_get(path, watcher, cb),
    );
    if (rc === Rc.NONODE) return undefined;
    if (rc !== Rc.OK) throw failure('watch', path, rc);
    return { stat: result[0], data: result[1] ?? Buffer.alloc(0) };
  }

  /** Stat of a node; undefined when it does not exist. */
  async exists(path: string): Promise<ZkStat | undefined> {
    const { rc, result } = await this.#requests.request<[ZkStat]>('exists', path, (zk, cb) =>
      zk.native.a_exists(path, false, cb),
    );
    if (rc === Rc.NONODE) return undefined;
    if (rc !== Rc.OK) throw failure('exists', path, rc);
    return result[0];
  }

  /** Child names; undefined when the node does not exist. */
  async children(path: string): Promise<string[] | undefined> {
    const { rc, result } = await this.#requests.request<[string[]]>('list', path, (zk, cb) =>
      zk.native.a_get_children(path, false, cb),
    );
    if (rc === Rc.NONODE) return undefined;
    if (rc !== Rc.OK) throw failure('list', path, rc);
    return result[0] ?? [];
  }

  /**
   * Creates a node: 'exists' when it already does, 'nonode' when its parent does not.
   *
   * With credentials, a node this create made gets fate's ACL by a `setACL` sent once the
   * create answered OK (the binding creates every node with the open ACL and takes no ACL
   * argument): it is open for that one round trip. The `setACL` is conditional on ACL
   * version 0; BADVERSION means another client changed the ACL in that window, which is
   * `FATE_STORE_CONFIG`. A node that existed already keeps its ACL, unless a create or
   * `setACL` of this client on that path was lost (its node may be this client's, unset):
   * then the repeated create sets it, as the lost `setACL` would have.
   */
  async create(
    path: string,
    data: Buffer | string,
    flags: number,
  ): Promise<'ok' | 'exists' | 'nonode'> {
    const auth = this.#config.auth;
    const { rc } = await this.#unsettledOnLoss(path, auth, () =>
      this.#requests.request<[string]>('create', path, (zk, cb) =>
        zk.native.a_create(path, data, flags, cb),
      ),
    );
    if (rc === Rc.NONODE) return 'nonode';
    if (rc !== Rc.OK && rc !== Rc.NODEEXISTS) throw failure('create', path, rc);
    if (auth && (rc === Rc.OK || this.#unsettled.has(path))) {
      const acl = await this.#unsettledOnLoss(path, auth, () =>
        this.#requests.request<[]>('setACL', path, (zk, cb) =>
          zk.native.a_set_acl(path, 0, auth.acl(), cb),
        ),
      );
      this.#unsettled.delete(path);
      // BADVERSION: a setACL came first. Only another ACL is a stranger's change: this
      // identity's own setACL, sent for an earlier node at this path (deleted and created
      // again since, as a runnable marker is), sets the very ACL wanted here.
      const first = rc === Rc.OK && acl.rc === Rc.BADVERSION;
      if (first && !(await this.#hasAcl(path, auth))) throw aclRaced(path);
      // NONODE: deleted meanwhile; on a repeat, BADVERSION (set already) and NOAUTH (not
      // this identity's node) leave the node as it is.
      const repeat = rc === Rc.NODEEXISTS && (acl.rc === Rc.BADVERSION || acl.rc === Rc.NOAUTH);
      if (acl.rc !== Rc.OK && acl.rc !== Rc.NONODE && !repeat && !first)
        throw failure('setACL', path, acl.rc);
    }
    return rc === Rc.OK ? 'ok' : 'exists';
  }

  /** True when `path` carries exactly `auth`'s ACL, or is gone. */
  async #hasAcl(path: string, auth: ZkAuth): Promise<boolean> {
    const { rc, result } = await this.#requests.request<
      [Array<{ perms: number; scheme: string; auth: string }>, ZkStat]
    >('getACL', path, (zk, cb) => zk.native.a_get_acl(path, cb));
    if (rc === Rc.NONODE) return true;
    if (rc !== Rc.OK) throw failure('getACL', path, rc);
    const key = (e: { scheme: string; auth: string }, perms: number) =>
      `${e.scheme}:${e.auth}:${perms}`;
    const has = (result[0] ?? []).map((e) => key(e, e.perms)).sort();
    const wanted = auth
      .acl()
      .map((e) => key(e, e.perm))
      .sort();
    return has.length === wanted.length && has.every((k, i) => k === wanted[i]);
  }

  /** Remembers `path` as possibly created without its ACL when `request` fails unanswered. */
  async #unsettledOnLoss<T>(
    path: string,
    auth: ZkAuth | undefined,
    request: () => Promise<T>,
  ): Promise<T> {
    try {
      return await request();
    } catch (err) {
      if (auth && isFateError(err, FateErrorCode.STORE_UNAVAILABLE)) {
        if (this.#unsettled.size >= MAX_UNSETTLED) this.#unsettled.clear();
        this.#unsettled.add(path);
      }
      throw err;
    }
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
    const { rc, result } = await this.#requests.request<[ZkStat]>('set', path, (zk, cb) =>
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
    const { rc } = await this.#requests.request<[]>('delete', path, (zk, cb) =>
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
        const refused = isFateError(err, FateErrorCode.STORE_CONFIG) && !isAclRace(err);
        if (!refused || !(await this.exists(at))) throw err;
      }
    }
  }
}
