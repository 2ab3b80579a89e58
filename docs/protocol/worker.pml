/* worker.pml: one engine's work finder and worker. Included by fate.pml. */

#define RUNS(i) provided (!dead[i] && frozen[i] == 0)
/* the run's last write: the last step's (SUCCESSFUL), or the last undo's (FAILED) */
#define LAST ((fl && prog == 0) || (!fl && prog + 1 >= NSTEPS))

/* The worker's side: WorkFinder.#page, Workers.#runOne, runTransaction, ReservedFate. */
proctype Worker(byte me) RUNS(me) {
  byte k, u, tries, prog, defer;
  bit ok, got, acc, unknown;
  bit sn, bg, fl;   /* -DADMIN: startedNow (this reservation moved it from SUBMITTED); a call
                     * began in this run (begun); an undo run (FAILED_IN_PROGRESS) */
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
      /* Reserving.#take: a fresh uuid, ReservationLedger.pending(uuid) */
#ifndef MUTANT_LATE_SIGNAL
      sig[me] = 0;      /* the run's signal is taken before reserving */
#endif
      freshUuid(LOCK(me), u);
      lgHeld[me] = 1; lgU[me] = u; tries = 0 }
  fi;
reserve:
  /* StoreBackend.tryReserve(id, {lockId, uuid}, start); the reply may come late */
  atomic {
    if
    :: up ->
      if
      :: seeded && (stLock == 0 || (stLock == LOCK(me) && stUuid == u)) ->
        stLock = LOCK(me); stUuid = u; stInc = me; got = 1;
        printf("%d: inc %d tryReserve u%d applied\n", ticks, me, u);
        prog = stProg; defer = stDefer;
        if :: stDone -> defer = 255 :: else fi;
#ifdef ADMIN
        /* start: SUBMITTED becomes IN_PROGRESS, and the reply says it was SUBMITTED */
        fl = stFail; sn = 0;
        if :: stSub -> stSub = 0; sn = 1 :: else fi
#endif
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
    :: defers > 0 && !fl && !stopping[me] && lease[me] > 0 && !sig[me] -> defers--; defer = 2; goto release
    :: !stopping[me] && lease[me] > 0 && !sig[me] -> running[me] = 1; P1;
#ifdef ADMIN
      if :: !fl -> began = 1; bg = 1 :: else fi;   /* an undo run only undoes */
#endif
      slpW[me] = 1;     /* a step takes a tick; a slow one longer */
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
        :: !fl && prog + 1 < NSTEPS -> stProg = prog + 1
        :: !fl && prog + 1 >= NSTEPS -> stProg = NSTEPS; stDone = 1; stLock = 0; stInc = 255; stDefer = 0
        :: fl && prog > 0 -> stProg = prog - 1                /* undone and popped */
        :: fl && prog == 0 -> stFail = 0; stDone = 1; stLock = 0; stInc = 255; stDefer = 0   /* FAILED */
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
    :: ok && acc && LAST -> goto ended
    :: ok && acc && !LAST -> if :: fl -> prog-- :: else -> prog++ fi; goto step
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
#ifdef ADMIN
        /* a run that started it and began no call gives it back as SUBMITTED */
#ifdef MUTANT_SUBMIT_BACK
        if :: sn -> stSub = 1 :: else fi;
#else
        if :: sn && !bg -> stSub = 1 :: else fi;
#endif
#endif
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
  atomic { handle[me] = 0; lgHeld[me] = 0; u = 0; tries = 0; prog = 0; defer = 0; ok = 0; got = 0; acc = 0; unknown = 0;
    sn = 0; bg = 0; fl = 0 }
  goto idle;
quit:
  wdone[me] = 1
}

