import { createHash, randomUUID } from 'node:crypto';
import { invalidArgument } from './errors.js';

/** A transaction id: a canonical lowercase UUID string. */
export type FateId = string & { readonly __fateId: unique symbol };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Namespace for keyed ids (a fixed random UUID; changing it would re-key every store). */
const KEY_NAMESPACE = Buffer.from('5b0f4f8e1c7d4a0b9d2e6f3a8c1b7e40', 'hex');

/** True when `value` is a canonical lowercase UUID. */
export function isFateId(value: unknown): value is FateId {
  return typeof value === 'string' && UUID.test(value);
}

/** Validates and brands an id; a malformed one is a `TypeError` (`FATE_INVALID_ARGUMENT`). */
export function parseFateId(value: unknown): FateId {
  if (!isFateId(value)) {
    throw invalidArgument(`not a fate id (a lowercase UUID): ${JSON.stringify(value)}`);
  }
  return value;
}

/** A fresh random (v4) id. */
export function newFateId(): FateId {
  return randomUUID() as FateId;
}

/** Identifies a keyed transaction: seeding the same key twice gives one transaction. */
export interface FateKey {
  readonly type: string;
  readonly key: string;
}

/**
 * The deterministic id of a keyed transaction: a name-based (v5, SHA-1) UUID of
 * `(type, key)`, so every process derives the same id without asking the store.
 */
export function keyedFateId(key: FateKey): FateId {
  if (typeof key?.type !== 'string' || key.type === '' || typeof key.key !== 'string') {
    throw invalidArgument('a fate key needs a non-empty string type and a string key');
  }
  const hash = createHash('sha1')
    .update(KEY_NAMESPACE)
    .update(`${key.type.length}:${key.type}:${key.key}`, 'utf8')
    .digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` as FateId;
}
