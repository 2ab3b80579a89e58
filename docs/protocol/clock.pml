/* clock.pml: time, the lease's timer, and the faults. Included by fate.pml. */

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

/* i := any started incarnation that is not done */
#define CAN(i) (started[i] && !wdone[i] && !dead[i])
#ifdef RESTART
#define PICK(i) if :: CAN(0) -> i = 0 :: CAN(1) -> i = 1 :: CAN(2) -> i = 2 fi
#else
#define PICK(i) if :: CAN(0) -> i = 0 :: CAN(1) -> i = 1 fi
#endif

/* Time, the lease timers and the faults. */
active proctype Clock() {
  byte i, k;
  do
  LAPSE_TIMER(0)
  LAPSE_TIMER(1)
#ifdef RESTART
  LAPSE_TIMER(2)
#endif
#ifdef ADMIN
  /* keyed seeding (seed with a key: created only when absent) makes it again */
  :: atomic { reseeds > 0 && gone -> reseeds--; gone = 0; seeded = 1; stSub = 1; began = 0;
    printf("%d: seeded again (keyed, created)\n", ticks) }
#endif
  /* once it finished (or was deleted), nothing that matters needs time */
  :: timeout && !stDone && !gone -> atomic {
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
#ifdef ADMIN
      if :: gap[OA] <= G -> gap[OA]++ :: else fi;
      if :: age[OA] > 0 && age[OA] <= G + 1 -> age[OA]++ :: else fi;
      if :: slpA > 0 -> slpA-- :: else fi;
      hot = 0;
#endif
      k = 0;
      do
      :: k < NO * NLK -> if :: known[k] && watch[k] < WMAX -> watch[k]++ :: else fi; k++
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
    :: k < NPID -> if :: slow[k] -> if :: slow[k] = 0; printf("%d: pid %d goes on\n", ticks, k) :: skip fi :: else fi; k++
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
    if :: !seeded && !gone -> seeded = 1; printf("%d: seeded\n", ticks) :: !seeded && !gone && early < SEEDBY -> skip :: else fi;
#ifdef ADMIN
    if :: !adminGo -> adminGo = 1; printf("%d: the admin client starts\n", ticks) :: skip fi;
#endif
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
    :: freezes > 0 -> freezes--; PICK(i);
#ifdef LIVE
      if :: frozen[i] = 2 :: frozen[i] = L :: frozen[i] = T + 1 fi;
      printf("%d: inc %d frozen for %d ticks\n", ticks, i, frozen[i])
#else
      frozen[i] = 1; printf("%d: inc %d frozen\n", ticks, i)
#endif
#ifdef LIVE
    :: crashes > 0 -> crashes--; PICK(i); dead[i] = 1; printf("%d: inc %d crashed\n", ticks, i)
#ifdef RESTART
    :: restarts > 0 && dead[0] -> restarts--; started[2] = 1; printf("%d: A restarts as inc 2\n", ticks)
#endif
    :: shutdowns > 0 && crashes > 0 -> shutdowns--; crashes--; stopping[1] = 1; printf("%d: inc 1 shuts down\n", ticks)
#else
#ifdef RESTART
    :: restarts > 0 -> restarts--; started[2] = 1; printf("%d: A restarts as inc 2\n", ticks)  /* A@1 dead, or only frozen */
#endif
    :: shutdowns > 0 -> shutdowns--; PICK(i); stopping[i] = 1;
      if :: giveUp[i] = 1; sig[i] = 1 :: skip fi; printf("%d: inc %d shuts down (timeout ran out: %d)\n", ticks, i, giveUp[i])
    :: gains > 0 -> gains--; PICK(i); printf("%d: inc %d clock gains a tick\n", ticks, i);
      /* everything incarnation i measures on its monotonic clock is a tick further on */
      d_step {
        k = 1;
        do
        :: k <= NLK -> if :: known[OX(i, k)] && watch[OX(i, k)] < WMAX -> watch[OX(i, k)]++ :: else fi; k++
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

