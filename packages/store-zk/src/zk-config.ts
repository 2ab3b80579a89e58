import {
  FateError,
  FateErrorCode,
  invalidArgument,
  readUrlParams,
  redactStoreUrl,
} from '@fate/core';
import { readCredentialsFile, splitCredentials, ZkAuth } from './zk-auth.js';

/** Where and how to reach ZooKeeper. */
export interface ZkConfig {
  /** The ensemble: `host:port[,host:port…]` (port 2181 when omitted). */
  readonly connect: string;
  /**
   * The znode all of this store's data lives under, created if missing: segments of
   * `[A-Za-z0-9._:@-]`. Default `/fate`.
   */
  readonly chroot?: string;
  /**
   * The ZooKeeper session timeout, ms (the server clamps it to 2–20 ticks unless it is
   * configured otherwise). Default 10,000.
   */
  readonly sessionTimeoutMs?: number;
  /**
   * How long opening a session may take before `FATE_STORE_UNAVAILABLE`, ms. Default 5,000
   * with one server; with several, the session timeout more, to get past one that accepts
   * connections but never answers (see `defaultConnectTimeoutMs`).
   */
  readonly connectTimeoutMs?: number;
  /** How long one request may wait for its answer before `FATE_STORE_UNAVAILABLE`, ms. Default 5,000. */
  readonly operationTimeoutMs?: number;
  /**
   * The servers' `jute.maxbuffer`, bytes: no request may be larger (default 1,048,575,
   * ZooKeeper's default). The declared record limit is derived from it.
   */
  readonly juteMaxBuffer?: number;
  /**
   * ZooKeeper `digest` credentials, `user:password`: sent with `addAuthInfo` on every
   * session, and every node the store creates gets an ACL with all rights for this
   * identity only. In a URL: `zk://user:password@host:2181/chroot` (percent-encoded).
   */
  readonly auth?: string;
  /** A file whose first line is `user:password` (instead of `auth`; URL: `?authFile=`). */
  readonly authFile?: string;
  /** With credentials: anyone may also read (not change) the store's nodes. URL: `?worldRead=1`. */
  readonly worldRead?: boolean;
}

/** A validated config with every default filled in, frozen. */
export interface ResolvedZkConfig {
  readonly connect: string;
  readonly chroot: string;
  readonly sessionTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly operationTimeoutMs: number;
  readonly juteMaxBuffer: number;
  /** The identity sessions authenticate as, and whose ACL new nodes carry; none: open ACLs. */
  readonly auth: ZkAuth | undefined;
}

export const DEFAULT_CHROOT = '/fate';
export const DEFAULT_SESSION_TIMEOUT_MS = 10_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/**
 * The connect timeout when none is given. The C client tries the servers one at a time,
 * and one that accepts connections but never answers (a hung JVM, a stalled disk) holds it
 * two thirds of the session timeout, and the binding up to a third more before it tries
 * the next (measured with one of three servers stopped: 4.1 s at a 4 s session timeout;
 * at the defaults, 4 to 6 of 20 new clients failed with 5 s while two servers served).
 * With several servers that is added to the 5 s.
 */
export function defaultConnectTimeoutMs(connect: string, sessionTimeoutMs: number): number {
  return connect.includes(',')
    ? sessionTimeoutMs + DEFAULT_CONNECT_TIMEOUT_MS
    : DEFAULT_CONNECT_TIMEOUT_MS;
}
export const DEFAULT_OPERATION_TIMEOUT_MS = 5_000;
/** ZooKeeper's default `jute.maxbuffer` (0xfffff), the largest request a server accepts. */
export const DEFAULT_JUTE_MAX_BUFFER = 1_048_575;

const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;
/**
 * What a chroot segment may hold. ZooKeeper itself takes nearly any character, but a
 * space, `%`, quotes or non-ASCII letters in a path make it easy to mistype in a URL, a
 * shell or `zkCli`, and a URL's percent-escapes would be taken literally: refused.
 */
const CHROOT_SEGMENT = /^[A-Za-z0-9._:@-]+$/;

/** The normalized ensemble string, or a reason it is not one. */
function checkConnect(connect: string): string | { error: string } {
  const hosts = connect.split(',');
  const out: string[] = [];
  for (const host of hosts) {
    const match = HOST.exec(host);
    const port = match?.[1] === undefined ? 2181 : Number(match[1]);
    if (!match || port < 1 || port > 65_535) return { error: `bad host "${host}"` };
    out.push(match[1] === undefined ? `${host}:2181` : host);
  }
  return out.join(',');
}

/** The normalized chroot (absolute, no trailing slash), or a reason it is not one. */
function checkChroot(chroot: string): string | { error: string } {
  const trimmed = chroot.replace(/\/+$/, '');
  if (trimmed === '') return DEFAULT_CHROOT;
  if (!trimmed.startsWith('/')) return { error: 'the chroot must be an absolute path' };
  const parts = trimmed.slice(1).split('/');
  for (const part of parts) {
    if (part === '.' || part === '..' || !CHROOT_SEGMENT.test(part)) {
      return {
        error: `bad chroot path segment ${JSON.stringify(part)} (use letters, digits and . _ : @ -)`,
      };
    }
  }
  if (parts[0] === 'zookeeper') return { error: '/zookeeper is reserved by ZooKeeper' };
  return trimmed;
}

/** The URL's parameters (all positive integers, ms or bytes). */
const PARAMS = {
  sessionTimeout: { kind: 'integer', max: 999_999_999 },
  connectTimeout: { kind: 'integer', max: 999_999_999 },
  operationTimeout: { kind: 'integer', max: 999_999_999 },
  juteMaxBuffer: { kind: 'integer', max: 999_999_999 },
  authFile: { kind: 'text', pattern: /^[^\0]+$/, hint: 'a file path' },
  worldRead: { kind: 'choice', values: ['0', '1'] },
} as const;

const CONFIG_KEYS: Record<keyof typeof PARAMS, keyof ZkConfig> = {
  sessionTimeout: 'sessionTimeoutMs',
  connectTimeout: 'connectTimeoutMs',
  operationTimeout: 'operationTimeoutMs',
  juteMaxBuffer: 'juteMaxBuffer',
  authFile: 'authFile',
  worldRead: 'worldRead',
};

function badUrl(url: unknown, why: string): FateError {
  return new FateError(
    FateErrorCode.BAD_URL,
    `not a ZooKeeper store URL: ${JSON.stringify(redactStoreUrl(url as string))}: ${why} ` +
      '(try zk://host:2181/fate or zk://h1:2181,h2:2181/app/fate?sessionTimeout=10000; the ' +
      'path is the chroot all data lives under, /fate when the URL has none)',
  );
}

/** `user:password` of a URL's userinfo, percent-decoded, or a reason it is not one. */
function userinfo(text: string): string | { error: string } {
  const at = text.indexOf(':');
  try {
    const user = decodeURIComponent(text.slice(0, at));
    const password = decodeURIComponent(text.slice(at + 1));
    if (at < 1 || user === '' || password === '' || user.includes(':')) throw new Error();
    return `${user}:${password}`;
  } catch {
    return { error: 'credentials must be user:password@ (percent-encoded, neither empty)' };
  }
}

/**
 * Parses `zk://[user:password@]host:port[,host:port…][/chroot][?sessionTimeout=ms&
 * connectTimeout=ms&operationTimeout=ms&juteMaxBuffer=bytes&authFile=path&worldRead=1]`.
 * Without a chroot the data lives under `/fate`: two stores on one ensemble share their
 * data unless their chroots differ. Anything else is a `FateError` with code
 * `FATE_BAD_URL`, whose message never holds the password.
 */
export function parseZkUrl(url: string): ZkConfig {
  const match =
    typeof url === 'string'
      ? /^zk:\/\/(?:([^/?#@]*)@)?([^/?#@]+)([^?#]*)(?:\?([^#]*))?$/i.exec(url)
      : null;
  if (!match) throw badUrl(url, 'expected zk://host:port[,host:port]/chroot');
  const [, info, hosts, path, query] = match;
  const credentials = info === undefined ? undefined : userinfo(info);
  if (typeof credentials === 'object') throw badUrl(url, credentials.error);
  const connect = checkConnect(hosts as string);
  if (typeof connect !== 'string') throw badUrl(url, connect.error);
  const chroot = checkChroot(path ?? '');
  if (typeof chroot !== 'string') throw badUrl(url, chroot.error);
  const fail = (why: string): never => {
    throw badUrl(url, why);
  };
  const config: Record<string, unknown> = { connect, chroot };
  if (credentials !== undefined) config.auth = credentials;
  for (const [name, value] of Object.entries(readUrlParams(query ?? '', PARAMS, fail).values)) {
    config[CONFIG_KEYS[name as keyof typeof PARAMS]] = name === 'worldRead' ? value === '1' : value;
  }
  if (config.auth !== undefined && config.authFile !== undefined) {
    fail('give the credentials once: user:password@ or authFile=, not both');
  }
  if (config.worldRead === true && config.auth === undefined && config.authFile === undefined) {
    fail('worldRead=1 needs credentials (user:password@ or authFile=)');
  }
  return config as unknown as ZkConfig;
}

function positive(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || (value as number) < 1)
    throw invalidArgument(`${name} must be a positive integer`);
  return value as number;
}

/** Validates `config` (a programmer mistake is a `TypeError`), fills defaults, freezes. */
export function resolveZkConfig(config: ZkConfig): ResolvedZkConfig {
  if (typeof config !== 'object' || config === null || typeof config.connect !== 'string') {
    throw invalidArgument('a ZooKeeper store needs a config { connect: "host:port[,host:port]" }');
  }
  const connect = checkConnect(config.connect);
  if (typeof connect !== 'string')
    throw invalidArgument(`bad ZooKeeper connect string: ${connect.error}`);
  if (config.chroot !== undefined && typeof config.chroot !== 'string') {
    throw invalidArgument('chroot must be a string');
  }
  const chroot = checkChroot(config.chroot ?? DEFAULT_CHROOT);
  if (typeof chroot !== 'string') throw invalidArgument(`bad chroot: ${chroot.error}`);
  const juteMaxBuffer = positive('juteMaxBuffer', config.juteMaxBuffer, DEFAULT_JUTE_MAX_BUFFER);
  if (juteMaxBuffer < 64 * 1024) throw invalidArgument('juteMaxBuffer must be at least 65536');
  const sessionTimeoutMs = positive(
    'sessionTimeoutMs',
    config.sessionTimeoutMs,
    DEFAULT_SESSION_TIMEOUT_MS,
  );
  return Object.freeze({
    connect,
    chroot,
    sessionTimeoutMs,
    connectTimeoutMs: positive(
      'connectTimeoutMs',
      config.connectTimeoutMs,
      defaultConnectTimeoutMs(connect, sessionTimeoutMs),
    ),
    operationTimeoutMs: positive(
      'operationTimeoutMs',
      config.operationTimeoutMs,
      DEFAULT_OPERATION_TIMEOUT_MS,
    ),
    juteMaxBuffer,
    auth: resolveAuth(config),
  });
}

/** The identity of `auth` or `authFile` (read now), or undefined when neither is given. */
function resolveAuth(config: ZkConfig): ZkAuth | undefined {
  const { auth, authFile, worldRead } = config;
  if (worldRead !== undefined && typeof worldRead !== 'boolean') {
    throw invalidArgument('worldRead must be a boolean');
  }
  if (auth !== undefined && typeof auth !== 'string')
    throw invalidArgument('auth must be a string');
  if (authFile !== undefined && (typeof authFile !== 'string' || authFile === '')) {
    throw invalidArgument('authFile must be a file path');
  }
  if (auth !== undefined && authFile !== undefined) {
    throw invalidArgument('give auth or authFile, not both');
  }
  if (auth === undefined && authFile === undefined) {
    if (worldRead) throw invalidArgument('worldRead needs credentials (auth or authFile)');
    return undefined;
  }
  const [user, password] =
    auth !== undefined ? splitCredentials(auth, 'auth') : readCredentialsFile(authFile as string);
  return new ZkAuth(user, password, worldRead === true);
}
