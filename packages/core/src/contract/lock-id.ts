import { randomBytes } from 'node:crypto';

/**
 * A lock id names one incarnation of an instance: `<instanceId>@<random>`, fresh each time
 * a store client opens. Reservations and liveness records use it, so a process restarted
 * under the same instance id neither inherits nor blocks what its predecessor held: the
 * predecessor's lock id simply stops renewing and is judged dead like any other.
 */
export function newLockId(instanceId: string): string {
  return `${instanceId}@${randomBytes(6).toString('hex')}`;
}

/** The instance id of a lock id (`w1` of `w1@9f2c…`); a lock id without `@` is its own. */
export function instanceIdOf(lockId: string): string {
  const at = lockId.lastIndexOf('@');
  return at < 0 ? lockId : lockId.slice(0, at);
}
