import { forwarding } from './forwarding.js';
import type { BackendMutant } from './mutant.js';

/** Liveness records: heartbeat, instances, ttl (promises 29, 30, 31). */
export const livenessMutants: readonly BackendMutant[] = [
  {
    name: 'heartbeat-state-latin1',
    promise: 29,
    breaks: 'liveness state is stored as latin1, mangling every non-ASCII character',
    wrap: (inner) =>
      forwarding(inner, {
        heartbeat: (lockId, state, ttlMs) =>
          inner.heartbeat(lockId, Buffer.from(state, 'utf8').toString('latin1'), ttlMs),
      }),
  },
  {
    name: 'heartbeat-not-replaced',
    promise: 29,
    breaks: 'heartbeat creates a liveness record but never replaces it (`SET NX`)',
    wrap: (inner, shared) =>
      forwarding(inner, {
        async heartbeat(lockId, state, ttlMs) {
          if (shared.heartbeats.has(lockId)) return;
          shared.heartbeats.add(lockId);
          await inner.heartbeat(lockId, state, ttlMs);
        },
      }),
  },
  {
    name: 'instances-forget-early',
    promise: 30,
    breaks: 'a liveness record is forgotten a tenth of its ttl after it was written',
    wrap: (inner) =>
      forwarding(inner, {
        heartbeat: (lockId, state, ttlMs) => inner.heartbeat(lockId, state, ttlMs / 10),
      }),
  },
  {
    name: 'tombstone-dropped-at-close',
    promise: 30,
    breaks: 'closing a client drops its liveness records (an ephemeral node), tombstone and all',
    needs: 'a heartbeat with ttl 0 to be forgotten at once, as the memory backend does',
    wrap: (inner) => {
      const written = new Map<string, string>();
      return forwarding(inner, {
        async heartbeat(lockId, state, ttlMs) {
          written.set(lockId, state);
          await inner.heartbeat(lockId, state, ttlMs);
        },
        async close() {
          for (const [lockId, state] of written) await inner.heartbeat(lockId, state, 0);
          await inner.close();
        },
      });
    },
  },
  {
    name: 'instances-only-first',
    promise: 31,
    breaks: 'instances answers only the first liveness record',
    wrap: (inner) =>
      forwarding(inner, { instances: async () => (await inner.instances()).slice(0, 1) }),
  },
];
