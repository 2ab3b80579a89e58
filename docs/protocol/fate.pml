/*
 * fate.pml: the reservation protocol of @fate/core, for spin. README.md next to this file
 * says how to run it, what is modelled, what is abstracted and what spin found.
 *
 * One transaction of NSTEPS steps and three engine incarnations: A@1, B@1 and A@2 (A
 * restarted under the same instance id). Each incarnation is two processes: Member
 * (engine/membership.ts with store/client-liveness.ts and store/reservation-ledger.ts:
 * heartbeat, observe, clear dead holders, release orphans, the ledger's background clears)
 * and Worker (engine/work-finder.ts, engine/workers.ts, engine/runner.ts and
 * store/reserved-fate.ts, one worker). Every store operation is one atomic step.
 *
 * Time is counted in ticks of half a heartbeat and advances only when no process can move
 * (`timeout`), so every action is quick unless a fault makes it slow:
 *   - a whole process freezes (GC, SIGSTOP) for any number of ticks, or for good (death);
 *   - one operation is slow: its request reaches the store late, or its reply comes late;
 *   - a reply is lost after the store applied the operation;
 *   - the store is away for any number of ticks;
 *   - A restarts under the same instance id (A@1 dead, or only frozen);
 *   - one incarnation's monotonic clock jumps a tick ahead;
 *   - one engine shuts down (and its shutdown timeout may run out).
 * Budgets below bound how many of each strike in one run.
 *
 * Builds: the default checks p1 (with assertion p4); -DLIVE (crashes that stay crashed,
 * freezes that end, no slow operations) checks p2 and p3 for acceptance cycles.
 *
 * Mutants, each of which must fail: -DMUTANT_A the cleaner observes liveness before it
 * lists reservations; -DMUTANT_B no incarnations, the lock id is the instance id;
 * -DMUTANT_C a lost tryReserve reply is forgotten (no repeat, no ledger, no
 * releaseOrphans); -DMUTANT_AT_REPLY and -DMUTANT_LATE_SIGNAL: the code before the fixes
 * this model led to (README.md).
 */

#define T       6   /* liveness timeout, ticks */
#define H       2   /* heartbeat period: T/3, the longest Fate allows */
#define L       5   /* the holder's own lease, T - H/2 (Fate: livenessTimeoutMs - heartbeatMs/2) */
#define G       3   /* LeaseObserver maxGapMs: T/2 */
#define WMAX    9   /* watch counters saturate at T + G: no verdict needs more */
#ifdef RESTART
#define NI      3   /* incarnations: 0 = A@1, 1 = B@1, 2 = A@2 */
#else
#define NI      2   /* incarnations: 0 = A@1, 1 = B@1 */
#endif
#define NL      NI  /* lock ids 1..NL; 0 = none */
#define NSTEPS  2
#define NU      4   /* reservation uuids per lock id */

#ifdef MUTANT_B
#define LOCK(i) ((i) == 2 -> 1 : (i) + 1)   /* A@2 writes under A@1's lock id */
#else
#define LOCK(i) ((i) + 1)                   /* newLockId: one lock id per incarnation */
#endif
#define OX(o, l) ((o) * NL + (l) - 1)       /* observer o's entry for lock id l */

/* ---- the store (StoreBackend): one transaction record and the liveness records ---- */
hidden byte ticks;     /* ticks so far, for the printed trace only (not in the state) */
bit  up = 1;          /* the store answers */
bit  seeded;          /* the transaction exists */
byte early;           /* ticks so far, up to SEEDBY */
#ifndef SEEDBY
#define SEEDBY 4
#endif
#ifndef STEPMAX
#define STEPMAX 1
#endif
bit  stDone;          /* status SUCCESSFUL */
byte stProg;          /* steps pushed */
byte stLock;          /* reservation lock id; 0 = unreserved */
byte stUuid;          /* reservation uuid */
byte stInc = 255;     /* ghost: the incarnation whose tryReserve stored the reservation */
byte stDefer;         /* ticks until the stored deferral passes, on the store's clock */
bit  present[NL + 1]; /* the lock id has a liveness record */
bit  tomb[NL + 1];    /* that record is a tombstone (unregisterInstance) */
bit  chg[NI * NL];    /* the record was written since observer o last read it (its beat changed) */
byte snapL[NI];       /* the reservation a cleaner listed and may clear */
byte snapU[NI];

/* ---- each incarnation's client state ---- */
bit  started[NI];
bit  dead[NI];        /* -DLIVE: crashed for good */
byte frozen[NI];      /* the whole process is frozen (-DLIVE: for this many more ticks) */
bit  slow[9];         /* this process (by _pid) waits for a slow operation */
bit  stopping[NI];    /* Fate.shutdown began */
bit  giveUp[NI];      /* shutdown(timeout) ran out: Workers.abortAll(reason, true) */
bit  wdone[NI];       /* its worker returned */
byte lease[NI];       /* Lease: ticks of validity left; Lease.valid is lease > 0 */
byte hbPend[NI];      /* the heartbeat in flight: sentAt + L, as ticks left */
bit  everValid[NI];
bit  armed[NI];       /* Lease's #check timer is set */
bit  reported[NI];    /* the current lapse was reported (onLapse ran) */
bit  sig[NI];         /* the AbortSignal the worker's run holds is aborted */
bit  running[NI];     /* the worker is inside a step's call */
bit  handle[NI];      /* the worker holds a ReservedFate handle */
bit  cut[NI];         /* ghost: someone else ended that handle's reservation */
bit  lgHeld[NI];      /* ReservationLedger: the worker's uuid is pending or held */
byte lgU[NI];
byte unc[NI];         /* ReservationLedger: uncertain uuids, a bit mask */
byte slpW[NI];        /* timers the worker and the member sleep on */
byte slpM[NI];
byte orph[NI];        /* -DLIVE: beats until releaseOrphans is due */

/* ---- each incarnation's LeaseObserver, per lock id ---- */
bit  known[NI * NL];
byte watch[NI * NL];  /* ticks since the observer saw it renew (now - renewedAt) */
bit  sgone[NI * NL];
byte gap[NI];         /* ticks since its last observation (now - lastObservedAt) */
byte age[NI];         /* 1 + ticks since the records of the observation under way were read; 0: none */
bit  intr[NI];        /* LeaseObserver.interrupted */

/* ---- fault budgets (each can be set with -DNAME=n) ---- */
#ifdef LIVE
#define DEF_SLOWS 0
#define DEF_FREEZES 1
#define DEF_GAINS 0
#else
#define DEF_SLOWS 2
#define DEF_FREEZES 2
#define DEF_GAINS 1
#endif
#ifndef SLOWS
#define SLOWS DEF_SLOWS
#endif
#ifndef FREEZES
#define FREEZES DEF_FREEZES
#endif
#ifndef GAINS
#define GAINS DEF_GAINS
#endif
#ifndef LOST
#define LOST 1
#endif
#ifndef DEFERS
#define DEFERS 1
#endif
#ifndef OUTAGES
#define OUTAGES 1
#endif
#ifndef SHUTDOWNS
#define SHUTDOWNS 1
#endif
#ifndef CRASHES
#define CRASHES 1
#endif
byte slows = SLOWS;   /* slow operations: a request that reaches the store late, a late reply */
byte freezes = FREEZES; /* whole-process freezes (without -DLIVE one may last for ever: a death) */
byte gains = GAINS;   /* a monotonic clock jumps a tick ahead */
byte lost = LOST;     /* replies lost after the store applied the operation */
byte defers = DEFERS; /* isReady answers "later" */
byte outages = OUTAGES;
byte shutdowns = SHUTDOWNS;
#ifdef RESTART
byte restarts = 1;    /* A restarts under the same instance id */
#else
byte restarts = 0;
#endif
#ifdef LIVE
byte away;            /* ticks until the store answers again */
byte crashes = CRASHES; /* with shutdowns, at most one engine stops for good */
#endif

#define LIVE_RUN(i) (running[i] && lease[i] > 0 && !sig[i] && !dead[i])
#define MINE(i) (stLock == LOCK(i) && stUuid == lgU[i])
/* the stored reservation's holder died, or no longer knows it holds it */
#define ORPHAN (stLock != 0 && stInc < NI && (dead[stInc] || \
  !((lgHeld[stInc] && lgU[stInc] == stUuid) || ((unc[stInc] >> stUuid) & 1))))

/* p1, never two live holders running a step of the transaction at once, is asserted
 * wherever an incarnation can become a live runner: when its worker starts a step
 * (running := 1) and when its lease is renewed (lease := > 0). Nothing else makes
 * LIVE_RUN true: sig is reset only between runs, dead never. */
#ifdef RESTART
#define P1 assert(!((LIVE_RUN(0) && LIVE_RUN(1)) || (LIVE_RUN(0) && LIVE_RUN(2)) || \
                    (LIVE_RUN(1) && LIVE_RUN(2))))
#else
#define P1 assert(!(LIVE_RUN(0) && LIVE_RUN(1)))
#endif
/* p2: a transaction whose holder died, or that is held under a reservation its holder
 * no longer knows of (a lost reply), is eventually runnable again (or finished) */
ltl p2 { [] (ORPHAN -> <> (stLock == 0 || stDone)) }
/* p3: a released transaction is never lost from the runnable set: it is taken again */
ltl p3 { [] ((seeded && stLock == 0 && !stDone) -> <> (stLock != 0 || stDone)) }
/* p4, an assertion in the Worker's fenced writes: a write of a holder whose reservation
 * someone else ended is rejected */

/* The operation may be slow: this process waits until the Clock lets it go on. */
#ifndef SLOWAT
#define SLOWAT 1023
#endif
#define SLOW(n) \
  if \
  :: ((SLOWAT >> n) & 1) && slows > 0 -> \
    atomic { slows--; slow[_pid] = 1; printf("%d: pid %d slow at point %d\n", ticks, _pid, n) }; !slow[_pid] \
  :: true \
  fi

/* A reply may be lost after the store applied the operation: the caller sees an error. */
inline reply(ok) {
  if
  :: lost > 0 -> lost--; ok = 0
  :: ok = 1
  fi
}

/* Someone other than the holder ends a reservation: noted for p4. */
inline cutHolders() {
  k = 0;
  do
  :: k < NI -> if :: handle[k] && MINE(k) -> cut[k] = 1 :: else fi; k++
  :: else -> break
  od
}

/* StoreBackend.clearReservation(id, {lockId, uuid}): only that exact reservation. */
inline clearRes(l, u) {
  if
  :: up && stLock == l && stUuid == u -> cutHolders(); stLock = 0; stInc = 255;
    printf("%d: pid %d clears lock %d u%d\n", ticks, _pid, l, u)
  :: else
  fi
}

/* StoreBackend.instances(): every liveness record, read at one instant. */
inline readInstances(o, ok) {
  if
  :: up ->
    k = 1;
    do
    :: k <= NL -> sc[k] = chg[OX(o, k)]; chg[OX(o, k)] = 0; sp[k] = present[k]; sg[k] = tomb[k]; k++
    :: else -> break
    od;
    age[o] = 1; ok = 1
  :: else -> ok = 0
  fi
}

/* LeaseObserver.observe(records, at), at = now: a changed beat is a renewal. */
inline observe(o) {
  resync = intr[o] || gap[o] > G;
  intr[o] = 0; gap[o] = 0;
  k = 1;
  do
  :: k <= NL && k == LOCK(o) -> k++   /* its own record: it judges only others */
  :: k <= NL && k != LOCK(o) ->
    if :: known[OX(o, k)] && resync -> watch[OX(o, k)] = 0 :: else fi;
    if
    :: sp[k] && !known[OX(o, k)] -> known[OX(o, k)] = 1; watch[OX(o, k)] = 0; sgone[OX(o, k)] = sg[k]
    :: sp[k] && known[OX(o, k)] -> if :: sc[k] -> watch[OX(o, k)] = 0 :: else fi; sgone[OX(o, k)] = sg[k]
    :: else
    fi;
    k++
  :: else -> break
  od;
  k = 0; resync = 0
}

/* LeaseObserver.track(lockId, at) then verdict: lapsed or gone. */
inline judge(o, l, kill) {
  if
  :: !known[OX(o, l)] ->
    known[OX(o, l)] = 1; watch[OX(o, l)] = 0; sgone[OX(o, l)] = 0;
    chg[OX(o, l)] = 1   /* beat undefined: any record it has next counts as a renewal */
  :: else
  fi;
#ifdef MUTANT_AT_REPLY
  kill = sgone[OX(o, l)] || watch[OX(o, l)] >= T             /* as of the reply */
#else
  kill = sgone[OX(o, l)] || watch[OX(o, l)] + 1 >= T + age[o]    /* as of the read */
#endif
}

/* Lease.renewed(sentAt) after an acknowledged heartbeat. */
inline renewed(i) {
#ifndef MUTANT_TIMER_ONLY
  /* a lapse its timer did not report yet is reported now, before the lease goes on */
  if
  :: everValid[i] && lease[i] == 0 && !reported[i] -> reported[i] = 1; sig[i] = 1;
    printf("%d: inc %d renewal after a lapse: runs aborted\n", ticks, i)
  :: else
  fi;
#endif
  if
  :: hbPend[i] > lease[i] -> lease[i] = hbPend[i]; armed[i] = 1; reported[i] = 0; everValid[i] = 1; P1
  :: else
  fi;
  hbPend[i] = 0
}

/* randomUUID(): a uuid of this lock id that nothing refers to (the store, a ledger, a
 * handle, a cleaner's listing), so it is as good as a fresh random one; the smallest. */
inline freshUuid(me, u) {
  u = 0;
  do
  :: u < NU ->
    k = 0; ok = (stLock == LOCK(me) && stUuid == u);
    do
    :: k < NI ->
      ok = ok || (LOCK(k) == LOCK(me) && (((lgHeld[k] || handle[k]) && lgU[k] == u) ||
        ((unc[k] >> u) & 1))) || (snapL[k] == LOCK(me) && snapU[k] == u);
      k++
    :: else -> break
    od;
    if :: ok -> u++ :: else -> break fi
  :: else -> break
  od;
  assert(u < NU);   /* model bound: a uuid is free */
  k = 0; ok = 0
}

#define RUNS(i) provided (!dead[i] && frozen[i] == 0)

/* The worker's side: WorkFinder.#page, Workers.#runOne, runTransaction, ReservedFate. */
proctype Worker(byte me) RUNS(me) {
  byte k, u, tries, prog, defer;
  bit ok, got, acc, unknown;
  started[me];
idle:
  /* WorkFinder.#run: scanRunnable (its partition; here all of it) while the lease is
   * valid; a sweep that found nothing backs off; shutdown closes the queue */
  if
  :: stopping[me] -> goto quit
  :: atomic { !stopping[me] && !(lease[me] > 0 && up && seeded && !stDone && stLock == 0 && stDefer == 0) ->
      slpW[me] = 1 }; slpW[me] == 0; goto idle
  :: atomic { !stopping[me] && lease[me] > 0 && up && seeded && !stDone && stLock == 0 && stDefer == 0 ->
      SLOW(1);
      /* Workers.#runOne: not live as far as we know, take nothing new */
      if :: lease[me] == 0 || stopping[me] -> goto idle :: else fi;
      /* GuardedFatesStore.#take: a fresh uuid, ReservationLedger.pending(uuid) */
#ifndef MUTANT_LATE_SIGNAL
      sig[me] = 0;      /* the run's signal is taken before reserving */
#endif
      freshUuid(me, u);
      lgHeld[me] = 1; lgU[me] = u; tries = 0 }
  fi;
reserve:
  /* StoreBackend.tryReserve(id, {lockId, uuid}, start); the reply may come late */
  atomic {
    if
    :: up ->
      if
      :: stLock == 0 || (stLock == LOCK(me) && stUuid == u) ->
        stLock = LOCK(me); stUuid = u; stInc = me; got = 1;
        printf("%d: inc %d tryReserve u%d applied\n", ticks, me, u);
        prog = stProg; defer = stDefer;
        if :: stDone -> defer = 255 :: else fi
      :: else -> got = 0
      fi;
      reply(ok)
    :: else -> ok = 0
    fi;
    SLOW(2);
    if
    :: !ok ->
      printf("%d: inc %d tryReserve u%d: no answer\n", ticks, me, u);
#ifdef MUTANT_C
      lgHeld[me] = 0; goto ended      /* the outcome is forgotten */
#else
      if
      :: tries < 3 -> tries++; goto reserve         /* retryUnknown: the same reservation */
      :: lgHeld[me] = 0; unc[me] = unc[me] | (1 << u); goto ended   /* ledger.uncertain */
      fi
#endif
    :: ok && !got -> lgHeld[me] = 0; goto ended  /* 'held': ledger.forget */
    :: ok && got -> handle[me] = 1; cut[me] = 0  /* ledger.hold */
    fi;
#ifdef MUTANT_LATE_SIGNAL
    sig[me] = 0;        /* runTransaction(ctx, fate, this.#runs.signal) */
#endif
    /* runTransaction: a finished record (stale scan) or a deferred one is released */
    unknown = 0;
    if
    :: defer == 255 -> defer = 0; goto release
    :: defer > 0 && defer < 255 -> goto release
    :: else
    fi
  }
step:
  /* runTransaction, loop head: stop between steps on shutdown, lapse or abort; isReady
   * may defer; then ctx.runStep(call), a tick or longer, honouring its signal */
  atomic {
    if
    :: stopping[me] || lease[me] == 0 || sig[me] -> goto release
    :: defers > 0 && !stopping[me] && lease[me] > 0 && !sig[me] -> defers--; defer = 2; goto release
    :: !stopping[me] && lease[me] > 0 && !sig[me] -> running[me] = 1; P1;
#if STEPMAX > 1
      if :: slpW[me] = 1 :: slpW[me] = STEPMAX fi;   /* a step takes a tick, or longer */
#else
      slpW[me] = 1;
#endif
      printf("%d: inc %d runs step %d (lease %d)\n", ticks, me, prog, lease[me])
    fi
  }
  atomic {
    slpW[me] == 0;
    SLOW(3);
    running[me] = 0;
    printf("%d: inc %d step %d returns (aborted: %d)\n", ticks, me, prog, sig[me]);
    if :: sig[me] -> goto settle :: else fi;     /* Interrupted: #settle releases it */
    tries = 0
  }
write:
  /* ReservedFate.commit: push, or at the last step SUCCESSFUL + unreserve in one write.
   * StoreBackend.write is fenced on (lockId, uuid) and absolute: a repeat is harmless. */
  atomic {
    if
    :: up ->
      if
      :: MINE(me) ->
        assert(!cut[me]);           /* p4 */
        if
        :: prog + 1 < NSTEPS -> stProg = prog + 1
        :: else -> stProg = NSTEPS; stDone = 1; stLock = 0; stInc = 255; stDefer = 0
        fi;
        acc = 1
      :: else -> acc = 0
      fi;
      printf("%d: inc %d writes step %d: accepted %d\n", ticks, me, prog, acc);
      reply(ok)
    :: else -> ok = 0; acc = 0
    fi;
    if
    :: ok && !acc -> goto ended                    /* FATE_NOT_RESERVED */
    :: ok && acc && prog + 1 == NSTEPS -> goto ended
    :: ok && acc && prog + 1 < NSTEPS -> prog++; goto step
    :: !ok && tries < 3 -> tries++; goto write     /* ReservedFate.#send: retryUnknown */
    :: !ok && tries == 3 -> unknown = 1; goto settle   /* the handle refuses use until refresh */
    fi
  }
release:
  tries = 0;
rel:
  /* ReservedFate.unreserve(deferMs) */
  atomic {
    if
    :: up ->
      if
      :: MINE(me) ->
        assert(!cut[me]);           /* p4 */
        stLock = 0; stInc = 255; stDefer = defer;
        acc = 1
      :: else -> acc = 0
      fi;
      printf("%d: inc %d unreserves u%d: accepted %d\n", ticks, me, u, acc);
      reply(ok)
    :: else -> ok = 0; acc = 0
    fi;
    if
    :: ok -> goto ended
    :: !ok && acc -> goto ended    /* ReservedFate.#send: the repeat finds it released by us */
    :: !ok && !acc && tries < 3 -> tries++; goto rel
    :: !ok && !acc && tries == 3 -> unknown = 1; goto failed
    fi
  }
settle:
  /* Workers.#settle: after an unknown outcome refresh(), then unreserve while still ours */
  if
  :: !unknown -> goto release
  :: else
  fi;
  atomic {
    if
    :: up -> unknown = 0; if :: MINE(me) -> goto release :: else -> goto ended fi
    :: else
    fi
  }
failed:
  /* the store is away: try again later, or abandon it once a shutdown gave up */
  if
  :: giveUp[me] -> goto ended
  :: else -> slpW[me] = 1; slpW[me] == 0; goto settle
  fi;
ended:
  /* the handle ended: ReservationLedger.forget */
  atomic { handle[me] = 0; lgHeld[me] = 0; u = 0; tries = 0; prog = 0; defer = 0; ok = 0; got = 0; acc = 0; unknown = 0 }
  goto idle;
quit:
  wdone[me] = 1
}

/* Membership.#beat with ClientLiveness and ReservationLedger. */
proctype Member(byte me) RUNS(me) {
  byte k;
  bit sc[NL + 1], sp[NL + 1], sg[NL + 1];
  bit ok, resync, kill;
#ifdef MUTANT_A
  byte lapsed;
#endif
  started[me];
beat:
  /* ClientLiveness.heartbeat: sentAt, StoreBackend.heartbeat(lockId, {beat + 1}), then
   * Lease.renewed(sentAt); the request may reach the store late, the reply come late */
  atomic {
    if :: stopping[me] && wdone[me] -> goto leave :: else fi;
    hbPend[me] = L;
    SLOW(4);
    if
    :: up ->
      present[LOCK(me)] = 1; tomb[LOCK(me)] = 0;
      k = 0;
      do
      :: k < NI -> chg[OX(k, LOCK(me))] = 1; k++
      :: else -> break
      od;
      reply(ok)
    :: else -> ok = 0
    fi;
    SLOW(5);
    if
    :: ok -> renewed(me); printf("%d: inc %d heartbeat acknowledged: lease %d\n", ticks, me, lease[me])
    :: else -> intr[me] = 1; printf("%d: inc %d heartbeat failed\n", ticks, me); goto wait   /* LeaseObserver.interrupted: judge nobody now */
    fi;
  /* Membership.#beat: liveInstances, an observation (its partition is not modelled) */
    readInstances(me, ok);
    if :: !ok -> goto wait :: else fi;
    observe(me);
    age[me] = 0;
  /* Membership.#beat → store.clearDeadReservations → ClientLiveness.clearDead */
#ifndef MUTANT_A
    /* reservations FIRST, then observe liveness, then judge each holder */
    if :: up -> snapL[me] = stLock; snapU[me] = stUuid :: else -> goto wait fi;
    SLOW(6);
    readInstances(me, ok);
    if :: !ok -> goto wait :: else fi;
    SLOW(7);
    observe(me);
    kill = 0;
    if
    :: snapL[me] != 0 && snapL[me] != LOCK(me) -> judge(me, snapL[me], kill);
      printf("%d: inc %d judges lock %d (watched %d, read %d ago): dead %d\n", ticks, me, snapL[me],
        watch[OX(me, snapL[me])], age[me] - 1, kill)
    :: else
    fi;
#else
    /* the old order: observe and judge, and only then list the reservations */
    readInstances(me, ok);
    if :: !ok -> goto wait :: else fi;
    SLOW(7);
    observe(me);
    lapsed = 0; k = 1;
    do
    :: k <= NL ->
      if
      :: known[OX(me, k)] && k != LOCK(me) && (sgone[OX(me, k)] || watch[OX(me, k)] + 1 >= T + age[me]) ->
        lapsed = lapsed | (1 << k)
      :: else
      fi;
      k++
    :: else -> break
    od;
    SLOW(8);
    if :: up -> snapL[me] = stLock; snapU[me] = stUuid :: else -> goto wait fi;
    kill = (lapsed >> snapL[me]) & 1;
#endif
    /* ClientLiveness.#clear: conditional on the exact reservation listed */
    if
    :: kill -> SLOW(9); clearRes(snapL[me], snapU[me])
    :: else
    fi;
#ifndef MUTANT_C
  /* ClientLiveness.releaseOrphans (every reconcileMs): what the store keeps under our
   * lock id that the ledger does not hold; one step here (a superset of its behaviours:
   * a uuid the ledger stopped holding is never held again) */
#ifdef LIVE
    if :: orph[me] > 0 -> orph[me]--; goto wait :: else -> orph[me] = 2 fi;   /* every third beat */
#else
    if :: true :: goto wait fi;      /* at any beat */
#endif
    if
    :: stLock == LOCK(me) && !(lgHeld[me] && lgU[me] == stUuid) -> clearRes(stLock, stUuid)
    :: else
    fi;
#endif
wait:
    slpM[me] = H; age[me] = 0;   /* what follows is not kept: a fresh beat starts from scratch */
    snapL[me] = 0; snapU[me] = 0; kill = 0; ok = 0;
#ifdef MUTANT_A
    lapsed = 0;
#endif
    k = 0;
    do
    :: k <= NL -> sc[k] = 0; sp[k] = 0; sg[k] = 0; k++
    :: else -> break
    od;
    k = 0
  }
  do
  :: slpM[me] == 0 -> goto beat
  :: atomic { unc[me] != 0 && up ->
    /* ReservationLedger.#resolve: clear each uncertain reservation once the store answers */
      k = 0;
      do
      :: k < NU -> if :: (unc[me] >> k) & 1 -> clearRes(LOCK(me), k) :: else fi; k++
      :: else -> break
      od;
      unc[me] = 0 }
  od;
leave:
  /* Membership.stop: Lease.stop, then unregisterInstance writes the tombstone; close()
   * drops the ledger's uncertain entries */
  atomic {
    armed[me] = 0;
    if
    :: up ->
      present[LOCK(me)] = 1; tomb[LOCK(me)] = 1;
      k = 0;
      do
      :: k < NI -> chg[OX(k, LOCK(me))] = 1; k++
      :: else -> break
      od
    :: else
    fi;
    unc[me] = 0
  }
}

/* Lease.#check fires after the lapse: late when the event loop was busy, never while the
 * process is frozen; onLapse aborts the runs' signal (Fate: workers' abortAll). */
#define LAPSE_TIMER(i) \
  :: atomic { armed[i] && lease[i] == 0 && !dead[i] && frozen[i] == 0 -> \
    armed[i] = 0; \
    if \
    :: !reported[i] -> reported[i] = 1; sig[i] = 1; \
      printf("%d: inc %d lease timer: lapsed, runs aborted\n", ticks, i) \
    :: else \
    fi }

/* Time, the lease timers and the faults. */
active proctype Clock() {
  byte i, k;
  do
  LAPSE_TIMER(0)
  LAPSE_TIMER(1)
#ifdef RESTART
  LAPSE_TIMER(2)
#endif
  :: timeout && !stDone -> atomic {   /* once it finished, nothing that matters happens */
    d_step {
      i = 0;
      do
      :: i < NI ->
        if :: lease[i] > 0 -> lease[i]-- :: else fi;
        if :: hbPend[i] > 0 -> hbPend[i]-- :: else fi;
        if :: slpW[i] > 0 -> slpW[i]-- :: else fi;
        if :: slpM[i] > 0 -> slpM[i]-- :: else fi;
        if :: gap[i] <= G -> gap[i]++ :: else fi;
        if :: age[i] > 0 && age[i] <= G + 1 -> age[i]++ :: else fi;
#ifdef LIVE
        if :: frozen[i] > 0 -> frozen[i]-- :: else fi;
#endif
        i++
      :: else -> break
      od;
      k = 0;
      do
      :: k < NI * NL -> if :: known[k] && watch[k] < WMAX -> watch[k]++ :: else fi; k++
      :: else -> break
      od;
      if :: stDefer > 0 -> stDefer-- :: else fi;
#ifdef LIVE
      if :: away > 0 -> away--; if :: away == 0 -> up = 1 :: else fi :: else fi;
#endif
      ticks++
    }
    printf("%d: -- tick\n", ticks);
    /* slow operations and frozen processes may go on now, or stay */
    k = 0;
    do
    :: k < 9 -> if :: slow[k] -> if :: slow[k] = 0; printf("%d: pid %d goes on\n", ticks, k) :: skip fi :: else fi; k++
    :: else -> break
    od;
#ifndef LIVE
    k = 0;
    do
    :: k < NI -> if :: frozen[k] -> if :: frozen[k] = 0; printf("%d: inc %d thaws\n", ticks, k) :: skip fi :: else fi; k++
    :: else -> break
    od;
#endif
    /* the transaction is seeded and B starts within the first SEEDBY ticks, in any phase */
    if :: !seeded -> seeded = 1; printf("%d: seeded\n", ticks) :: !seeded && early < SEEDBY -> skip :: else fi;
#ifndef NO_B
    if :: !started[1] -> started[1] = 1; printf("%d: B starts\n", ticks) :: !started[1] && early < 1 -> skip :: else fi;
#endif
    if :: early < SEEDBY -> early++ :: else fi;
    /* a fault may strike before the next tick */
    if
#ifdef LIVE
    :: outages > 0 && up -> outages--; up = 0; if :: away = 2 :: away = T + 1 fi;
      printf("%d: store away for %d ticks\n", ticks, away)
#else
    :: outages > 0 && up -> outages--; up = 0; printf("%d: store away\n", ticks)
    :: !up -> up = 1; printf("%d: store back\n", ticks)
#endif
    :: freezes > 0 -> freezes--;
#ifdef LIVE
      if :: i = 0 :: i = 1 fi; if :: frozen[i] = 2 :: frozen[i] = L :: frozen[i] = T + 1 fi;
      printf("%d: inc %d frozen for %d ticks\n", ticks, i, frozen[i])
#else
      if :: i = 0 :: i = 1 fi; frozen[i] = 1; printf("%d: inc %d frozen\n", ticks, i)
#endif
#ifdef LIVE
    :: crashes > 0 -> crashes--; if :: i = 0 :: i = 1 fi; dead[i] = 1; printf("%d: inc %d crashed\n", ticks, i)
#ifdef RESTART
    :: restarts > 0 && dead[0] -> restarts--; started[2] = 1; printf("%d: A restarts as inc 2\n", ticks)
#endif
    :: shutdowns > 0 && crashes > 0 -> shutdowns--; crashes--; stopping[1] = 1; printf("%d: inc 1 shuts down\n", ticks)
#else
#ifdef RESTART
    :: restarts > 0 -> restarts--; started[2] = 1; printf("%d: A restarts as inc 2\n", ticks)  /* A@1 dead, or only frozen */
#endif
    :: shutdowns > 0 -> shutdowns--; if :: i = 0 :: i = 1 fi; stopping[i] = 1;
      if :: giveUp[i] = 1; sig[i] = 1 :: skip fi; printf("%d: inc %d shuts down (timeout ran out: %d)\n", ticks, i, giveUp[i])
    :: gains > 0 -> gains--; if :: i = 0 :: i = 1 fi; printf("%d: inc %d clock gains a tick\n", ticks, i);
      /* everything incarnation i measures on its monotonic clock is a tick further on */
      d_step {
        k = 1;
        do
        :: k <= NL -> if :: known[OX(i, k)] && watch[OX(i, k)] < WMAX -> watch[OX(i, k)]++ :: else fi; k++
        :: else -> break
        od;
        if :: gap[i] <= G -> gap[i]++ :: else fi;
        if :: age[i] > 0 && age[i] <= G + 1 -> age[i]++ :: else fi;
        if :: lease[i] > 0 -> lease[i]-- :: else fi;
        if :: hbPend[i] > 0 -> hbPend[i]-- :: else fi
      }
#endif
    :: true
    fi;
    i = 0; k = 0
  }
  od
}

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
    :: k < NI -> gap[k] = G + 1; k++
    :: else -> break
    od;
    run Member(0); run Worker(0);
    run Member(1); run Worker(1)
#ifdef RESTART
    ; run Member(2); run Worker(2)
#endif
  }
}
