import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { FateError, FateErrorCode, invalidArgument } from '@fate/core';

/** ZooKeeper's permission bits (zookeeper.h `ZOO_PERM_*`). */
export const Perm = { READ: 1, WRITE: 2, CREATE: 4, DELETE: 8, ADMIN: 16, ALL: 31 } as const;

/** One ACL entry as the binding's native `a_set_acl` takes it (`perm`, singular). */
export interface ZkAclEntry {
  readonly perm: number;
  readonly scheme: string;
  readonly auth: string;
}

/**
 * A ZooKeeper `digest` identity: the user and password sent with `addAuthInfo` on every
 * session, and the ACL every node the store creates carries (all rights for this
 * identity; read for anyone only with `worldRead`). The password is a private field: it
 * is not enumerable, not in `JSON.stringify` or `util.inspect` of a config, and no error
 * message names it.
 */
export class ZkAuth {
  readonly user: string;
  /** The ACL id ZooKeeper derives from the credentials: `user:base64(sha1(user:password))`. */
  readonly id: string;
  readonly worldRead: boolean;
  readonly #password: string;

  constructor(user: string, password: string, worldRead: boolean) {
    this.user = user;
    this.#password = password;
    this.worldRead = worldRead;
    const digest = createHash('sha1').update(`${user}:${password}`).digest('base64');
    this.id = `${user}:${digest}`;
    Object.freeze(this);
  }

  /** What `add_auth('digest', …)` sends. */
  credentials(): string {
    return `${this.user}:${this.#password}`;
  }

  /** The ACL of every node this store creates. */
  acl(): ZkAclEntry[] {
    const own = { perm: Perm.ALL, scheme: 'digest', auth: this.id };
    return this.worldRead ? [own, { perm: Perm.READ, scheme: 'world', auth: 'anyone' }] : [own];
  }

  toString(): string {
    return `digest:${this.user}`;
  }

  toJSON(): string {
    return this.toString();
  }
}

/**
 * `user:password` → its parts. The user may not hold `:` (ZooKeeper's digest provider
 * splits at the first one); the password may hold anything but a line break.
 */
export function splitCredentials(text: string, where: string): [string, string] {
  const at = text.indexOf(':');
  const user = at > 0 ? text.slice(0, at) : '';
  const password = at > 0 ? text.slice(at + 1) : '';
  if (user === '' || password === '' || /[\r\n]/.test(text)) {
    throw invalidArgument(`${where} must be "user:password" with a non-empty user and password`);
  }
  return [user, password];
}

/**
 * Reads `user:password` from the first line of a file (so the secret is in no process
 * listing or shell history); a missing or unreadable file is `FATE_STORE_CONFIG`.
 */
export function readCredentialsFile(path: string): [string, string] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    const code = (cause as { code?: string }).code ?? 'error';
    throw new FateError(
      FateErrorCode.STORE_CONFIG,
      `ZooKeeper: cannot read the credentials file ${JSON.stringify(path)} (${code})`,
    );
  }
  const line = text.split(/\r?\n/)[0] ?? '';
  try {
    return splitCredentials(line, `the first line of ${JSON.stringify(path)}`);
  } catch (err) {
    throw new FateError(FateErrorCode.STORE_CONFIG, `ZooKeeper: ${(err as Error).message}`);
  }
}
