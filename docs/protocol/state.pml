/* state.pml: what the store keeps, what each client keeps, the fault budgets and the
 * properties. Included by fate.pml. */

/* ---- the store (StoreBackend): one transaction record and the liveness records ---- */
hidden byte ticks;     /* ticks so far, for the printed trace only (not in the state) */
bit  up = 1;          /* the store answers */
bit  seeded;          /* the transaction exists */
byte early;           /* ticks so far, up to SEEDBY */
bit  stDone;          /* status SUCCESSFUL (with -DADMIN: or FAILED) */
bit  gone;            /* -DADMIN: deleted (by an admin or age-off), not seeded again */
bit  stFail;          /* -DADMIN: status FAILED_IN_PROGRESS (fate fail): engines undo its steps */
#ifdef ADMIN
bit  stSub = 1;       /* status SUBMITTED; else IN_PROGRESS, or FAILED_IN_PROGRESS, or finished */
bit  began;           /* ghost: a step's call began on it since it was seeded */
bit  adminGo;         /* the admin client was started */
bit  aHandle;         /* it holds a reservation (LA, aU) */
byte aU;
bit  cutA;            /* ghost: someone else ended it */
byte slpA;            /* its pause */
byte hot;             /* its turns since the last tick (p7) */
#endif
byte stProg;          /* steps pushed */
byte stLock;          /* reservation lock id; 0 = unreserved */
byte stUuid;          /* reservation uuid */
byte stInc = 255;     /* ghost: the incarnation whose tryReserve stored the reservation */
byte stDefer;         /* ticks until the stored deferral passes, on the store's clock */
bit  present[NLK + 1]; /* the lock id has a liveness record */
bit  tomb[NLK + 1];   /* that record is a tombstone (unregisterInstance) */
bit  chg[NO * NLK];   /* the record was written since observer o last read it (its beat changed) */

/* ---- each incarnation's client state ---- */
bit  started[NI];
byte snapL[NO];       /* the reservation its cleaner listed and may clear (lock id, uuid) */
byte snapU[NO];
byte strL[NI];        /* the reservation its sweep of strays listed under a stray's lock id */
byte strU[NI];
bit  dead[NI];        /* -DLIVE: crashed for good */
byte frozen[NI];      /* the whole process is frozen (-DLIVE: for this many more ticks) */
bit  slow[NPID];         /* this process (by _pid) waits for a slow operation */
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
bit  known[NO * NLK];
byte watch[NO * NLK]; /* ticks since the observer saw it renew (now - renewedAt) */
bit  sgone[NO * NLK];
bit  swpt[NO * NLK];  /* swept since it last renewed (sweptAt == renewedAt) */
byte gap[NO];         /* ticks since its last observation (now - lastObservedAt) */
byte age[NO];         /* 1 + ticks since the records of the observation under way were read; 0: none */
bit  intr[NO];        /* LeaseObserver.interrupted */

/* ---- fault budgets: how many of each may strike in one run (-DNAME=n; default none) ---- */
#ifndef SLOWS
#define SLOWS 0
#endif
#ifndef FREEZES
#define FREEZES 0
#endif
#ifndef GAINS
#define GAINS 0
#endif
#ifndef LOST
#define LOST 0
#endif
#ifndef DEFERS
#define DEFERS 0
#endif
#ifndef OUTAGES
#define OUTAGES 0
#endif
#ifndef SHUTDOWNS
#define SHUTDOWNS 0
#endif
#ifndef CRASHES
#define CRASHES 0
#endif
byte slows = SLOWS;     /* slow operations: a request that reaches the store late, a late reply */
byte freezes = FREEZES; /* whole-process freezes; without -DLIVE one may last for ever (a death) */
byte gains = GAINS;     /* a monotonic clock jumps a tick ahead (not with -DLIVE) */
byte lost = LOST;       /* replies lost after the store applied the operation */
byte defers = DEFERS;   /* isReady answers "later" */
byte outages = OUTAGES; /* the store is away (with -DLIVE for 2 or T + 1 ticks) */
byte shutdowns = SHUTDOWNS;
#ifndef RESEEDS
#define RESEEDS 0
#endif
byte reseeds = RESEEDS; /* -DADMIN: keyed seeding makes it again once deleted */
#ifdef RESTART
byte restarts = 1;      /* A restarts under the same instance id */
#else
byte restarts = 0;
#endif
#ifdef LIVE
byte away;              /* ticks until the store answers again */
byte crashes = CRASHES; /* with shutdowns, at most one engine stops for good */
#endif

#define LIVE_RUN(i) (running[i] && lease[i] > 0 && !sig[i] && !dead[i])
#ifdef RESTART
#define ANY_LIVE_RUN (LIVE_RUN(0) || LIVE_RUN(1) || LIVE_RUN(2))
#else
#define ANY_LIVE_RUN (LIVE_RUN(0) || LIVE_RUN(1))
#endif
#ifdef MUTANT_FENCE
#define MINE(i) (stLock == LOCK(i))                     /* fenced on the lock id alone */
#else
#define MINE(i) (stLock == LOCK(i) && stUuid == lgU[i]) /* fenced on lock id and uuid */
#endif
/* the stored reservation's holder died, or no longer knows it holds it */
#define ORPHAN (stLock != 0 && stInc < NI && (dead[stInc] || \
  !((lgHeld[stInc] && lgU[stInc] == stUuid) || ((unc[stInc] >> stUuid) & 1))))

/* p1, never two live holders running a step of the transaction at once, is asserted
 * wherever an incarnation can become a live runner: when its worker starts a step
 * (running := 1) and when its lease is renewed (lease := > 0). Nothing else makes
 * LIVE_RUN true: sig is reset only between runs, dead never. */
#ifdef NO_P1
#define P1 skip   /* to see p4 caught on its own */
#elif defined(RESTART)
#define P1 assert(!((LIVE_RUN(0) && LIVE_RUN(1)) || (LIVE_RUN(0) && LIVE_RUN(2)) || \
                    (LIVE_RUN(1) && LIVE_RUN(2))))
#else
#define P1 assert(!(LIVE_RUN(0) && LIVE_RUN(1)))
#endif
#ifdef ADMIN
/* p1 for an admin change: it never applies while a live holder runs a step */
#define P1A assert(!ANY_LIVE_RUN)
#endif
/* p2: a transaction whose holder died, or that is held under a reservation its holder
 * no longer knows of (a lost reply), is eventually runnable again (or finished) */
ltl p2 { [] (ORPHAN -> <> (stLock == 0 || stDone)) }
/* p3: a released transaction is never lost from the runnable set: it is taken again */
ltl p3 { [] ((seeded && stLock == 0 && !stDone) -> <> (stLock != 0 || stDone)) }
/* p4, an assertion in the Worker's fenced writes: a write of a holder whose reservation
 * someone else ended is rejected */

