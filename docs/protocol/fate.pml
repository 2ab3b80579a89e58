/*
 * fate.pml: the reservation protocol of @fate/core as spin model-checks it. README.md in
 * this folder says how to run it, what is modelled and abstracted, and what spin found;
 * scripts/verify-protocol.mjs runs every configuration (npm run verify:protocol).
 *
 * One transaction of NSTEPS steps; engine incarnations A@1 and B@1, and with -DRESTART
 * A@2 (A restarted under the same instance id). Each incarnation is two processes:
 *   Member (member.pml): engine/membership.ts with guard/client-liveness.ts, guard/dead-holders.ts,
 *     guard/lease-observer.ts, guard/reservation-ledger.ts and engine/lease.ts:
 *     heartbeat, observe, clear dead holders, release orphans, the ledger's clears;
 *   Worker (worker.pml): engine/work-finder.ts, engine/workers.ts, engine/runner.ts,
 *     guard/guarded-fates-store.ts, guard/reserving.ts and guard/reserved-fate.ts, with one worker.
 * The store (state.pml, ops.pml) is the records every backend keeps; each of its
 * operations is one atomic step. Clock (clock.pml) advances time, fires the lease's timer
 * and injects the faults.
 *
 * Time is counted in ticks of half a heartbeat. It advances only when no process can move
 * (`timeout`): every action is quick unless a fault makes it slow. Monotonic clocks all
 * run at the rate of the ticks; wall clocks play no part (the code compares none).
 *
 * Builds: by default the safety properties p1 and p4 are assertions (state.pml); with
 * -DLIVE, crashes stay crashed and freezes end, and the LTL properties p2 and p3 are
 * checked for acceptance cycles. Fault budgets are set per run (-DSLOWS=2 ...).
 *
 * Mutants, each of which must be caught: -DMUTANT_A the cleaner observes liveness before
 * it lists reservations; -DMUTANT_B no incarnations: the lock id is the instance id;
 * -DMUTANT_C a lost tryReserve reply is forgotten (no repeat, no ledger, no
 * releaseOrphans); -DMUTANT_FENCE writes fenced on the lock id alone (with MUTANT_B);
 * and the code before the fixes this model led to: -DMUTANT_AT_REPLY the cleaner judges
 * as of the reply to its liveness read; -DMUTANT_LATE_SIGNAL a run takes its abort signal
 * after tryReserve answered; -DMUTANT_TIMER_ONLY only the lease's timer reports a lapse.
 */

#ifndef T
#define T       6           /* liveness timeout, ticks (-DT=8: the default heartbeat, T/4) */
#endif
#define H       2           /* heartbeat period; with T = 6 it is T/3, the longest Fate allows */
#define L       (T - 1)     /* the holder's own lease: T - H/2 (Fate: timeout - heartbeat/2) */
#define G       (T / 2)     /* LeaseObserver's maxGapMs: T/2 */
#define S       (T + G)     /* a stray: silent 1.5 timeouts (LeaseObserver.strays) */
#ifdef SHARES
#define WMAX    (S + G)     /* watch counters saturate here: no verdict needs more */
#else
#define WMAX    S           /* the same at a reply's age 1: the ordinary cleaner clears first */
#endif
#ifdef RESTART
#define NI      3           /* incarnations: 0 = A@1, 1 = B@1, 2 = A@2 */
#else
#define NI      2           /* incarnations: 0 = A@1, 1 = B@1 */
#endif
#define NL      NI          /* lock ids of incarnations 1..NL; 0 = none */
#ifdef ADMIN
#define LA      (NL + 1)    /* the admin client's lock id (it writes no liveness record) */
#define OA      NI          /* the admin client's observer */
#define NLK     (NL + 1)    /* lock ids 1..NLK */
#define NO      (NI + 1)    /* observers: the incarnations and the admin client */
#else
#define NLK     NL
#define NO      NI
#endif
#define NSTEPS  2
#define NU      4           /* uuids per lock id (reused once nothing refers to one) */
#ifndef SEEDBY
#define SEEDBY  4           /* the transaction is seeded within this many ticks */
#endif

#ifdef MUTANT_B
#define LOCK(i) ((i) == 2 -> 1 : (i) + 1)   /* A@2 writes under A@1's lock id */
#else
#define LOCK(i) ((i) + 1)                   /* newLockId: one lock id per incarnation */
#endif
#define OX(o, l) ((o) * NLK + (l) - 1)       /* observer o's entry for lock id l */
#define NPID    12          /* process ids (for slow[]) */

#include "state.pml"
#include "ops.pml"
#include "worker.pml"
#include "member.pml"
#ifdef ADMIN
#include "admin.pml"
#endif
#ifdef AGEOFF
#include "ageoff.pml"
#endif
#include "clock.pml"

init {
  byte k;
  atomic {
    started[0] = 1;
#ifndef NO_B
    if :: started[1] = 1 :: skip fi;
#endif
    if :: seeded = 1 :: skip fi;
    k = 0;
    do
    :: k < NO -> gap[k] = G + 1; k++
    :: else -> break
    od;
    run Member(0); run Worker(0);
    run Member(1); run Worker(1)
#ifdef RESTART
    ; run Member(2); run Worker(2)
#endif
#ifdef ADMIN
    ; run Admin()
#endif
#ifdef AGEOFF
    ; run AgeOff()
#endif
  }
}
