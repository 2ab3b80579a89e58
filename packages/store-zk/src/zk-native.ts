import type { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import type { ZkAclEntry } from './zk-auth.js';

// The narrow slice of the `zookeeper` package (the C-client binding) this backend uses.
// Its callback methods are used rather than its promise wrappers: those reject with
// messages that embed every argument (a 1 MB payload included) instead of a result code.
// Requests go to the wrapper's `native` handle directly: the wrapper's methods only add a
// debug log line, which they format (`util.inspect` of every argument) even with logging
// off; that formatting cost as much client CPU as the whole rest of a seed.

/** A znode's metadata, as the binding reports it. */
export interface ZkStat {
  readonly czxid: number;
  readonly mzxid: number;
  /** Last modification, server clock. */
  readonly mtime: Date | number;
  readonly version: number;
  /** The ACL's version: 0 until a `setACL`. */
  readonly aversion?: number;
  readonly ephemeralOwner: string;
  /** True when the node is ephemeral and owned by the session that read it. */
  readonly createdInThisSession?: boolean;
  readonly dataLength: number;
  readonly numChildren: number;
}

export type RcCallback<T extends unknown[]> = (rc: number, error: string, ...result: T) => void;
export type WatchCallback = (type: number, state: number, path: string) => void;

/** The binding's native handle: the request methods, without the wrapper's logging. */
export interface NativeCalls {
  a_create(path: string, data: Buffer | string, flags: number, cb: RcCallback<[string]>): number;
  a_exists(path: string, watch: boolean, cb: RcCallback<[ZkStat]>): number;
  a_get(path: string, watch: boolean, cb: RcCallback<[ZkStat, Buffer]>): number;
  aw_get(path: string, watch: WatchCallback, cb: RcCallback<[ZkStat, Buffer]>): number;
  a_get_children(path: string, watch: boolean, cb: RcCallback<[string[]]>): number;
  a_set(path: string, data: Buffer | string, version: number, cb: RcCallback<[ZkStat]>): number;
  a_delete_(path: string, version: number, cb: RcCallback<[]>): number;
  /** `version` is the ACL version (`aversion`), -1 for any. */
  a_set_acl(path: string, version: number, acl: readonly ZkAclEntry[], cb: RcCallback<[]>): number;
  /** The node's ACL as `{ perms, scheme, auth }` entries (`perms`, plural, on the way out). */
  a_get_acl(
    path: string,
    cb: RcCallback<[Array<{ perms: number; scheme: string; auth: string }>, ZkStat]>,
  ): number;
  add_auth(scheme: string, auth: string, cb: RcCallback<[]>): number;
  /** Answers once the session's server has applied every write the leader had committed. */
  a_sync(path: string, cb: RcCallback<[string]>): number;
}

/** One ZooKeeper handle (one session). Never touched again after its `close` event. */
export interface NativeZk extends EventEmitter {
  init(config: object): this;
  close(): void;
  readonly client_id: string;
  /** The session's password, hex; with `client_id`, resumes the session in a new handle. */
  readonly client_password: string;
  /** The C client's state (`ZooKeeperState`); 0 once the handle is closed. */
  readonly state: number;
  /** Requests: data comes back as Buffers (the wrapper converts only with an encoding set). */
  readonly native: NativeCalls;
}

type NativeZkClass = new (config: object) => NativeZk;

/** Result codes of the C client (zookeeper.h). */
export const Rc = {
  OK: 0,
  CONNECTIONLOSS: -4,
  MARSHALLINGERROR: -5,
  OPERATIONTIMEOUT: -7,
  BADARGUMENTS: -8,
  INVALIDSTATE: -9,
  NONODE: -101,
  NOAUTH: -102,
  BADVERSION: -103,
  NOCHILDRENFOREPHEMERALS: -108,
  NODEEXISTS: -110,
  NOTEMPTY: -111,
  SESSIONEXPIRED: -112,
  INVALIDACL: -114,
  AUTHFAILED: -115,
  CLOSING: -116,
} as const;

/** Session states of the C client (zookeeper.h). */
export const ZooKeeperState = {
  CONNECTED: 3,
  /** Set when a request could not be written and the C client closed its socket. */
  NOT_CONNECTED: 999,
} as const;

/** A stat time (the binding gives a `Date`) as epoch ms. */
export function millis(t: Date | number): number {
  return typeof t === 'number' ? t : t.getTime();
}

/** Node creation flags. */
export const CreateFlag = { PERSISTENT: 0, EPHEMERAL: 1 } as const;

/** Watch event types. */
export const WatchEvent = { CREATED: 1, DELETED: 2, CHANGED: 3, CHILD: 4, SESSION: -1 } as const;

let loaded: NativeZkClass | undefined;

/** Loads the binding on first use, so URL parsing works without the native module. */
export function nativeZooKeeper(): NativeZkClass {
  loaded ??= createRequire(import.meta.url)('zookeeper') as NativeZkClass;
  return loaded;
}
