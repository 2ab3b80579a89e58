/* ops.pml: the store's operations (StoreBackend, each one atomic step) and the liveness
 * rules of the guard (LeaseObserver, Lease). Included by fate.pml. */

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
  od;
#ifdef ADMIN
  if :: aHandle && stLock == LA && stUuid == aU -> cutA = 1 :: else fi;
#endif
  k = 0
}

/* StoreBackend.clearReservation(id, {lockId, uuid}): only that exact reservation. */
inline clearRes(l, u) {
  if
  :: up && stLock == l && stUuid == u ->
    printf("%d: pid %d clears lock %d u%d\n", ticks, _pid, l, u);
    cutHolders(); stLock = 0; stInc = 255
  :: else
  fi
}

/* StoreBackend.instances(): every liveness record, read at one instant. */
inline readInstances(o, ok) {
  if
  :: up ->
    k = 1;
    do
    :: k <= NLK -> sc[k] = chg[OX(o, k)]; chg[OX(o, k)] = 0; sp[k] = present[k]; sg[k] = tomb[k]; k++
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
  :: k <= NLK && k == LOCK(o) -> k++   /* its own record: it judges only others */
  :: k <= NLK && k != LOCK(o) ->
    if :: known[OX(o, k)] && resync -> watch[OX(o, k)] = 0; swpt[OX(o, k)] = 0 :: else fi;
    if
    :: sp[k] && !known[OX(o, k)] -> known[OX(o, k)] = 1; watch[OX(o, k)] = 0; sgone[OX(o, k)] = sg[k]
    :: sp[k] && known[OX(o, k)] ->
      if :: sc[k] -> watch[OX(o, k)] = 0; swpt[OX(o, k)] = 0 :: else fi; sgone[OX(o, k)] = sg[k]
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

/* randomUUID(): a uuid of lock id l that nothing refers to (the store, a ledger, a handle,
 * a cleaner's listing), so it is as good as a fresh random one; the smallest. */
inline freshUuid(l, u) {
  u = 0;
  do
  :: u < NU ->
    k = 0; ok = (stLock == l && stUuid == u);
    do
    :: k < NI ->
      ok = ok || (LOCK(k) == l && (((lgHeld[k] || handle[k]) && lgU[k] == u) ||
        ((unc[k] >> u) & 1))) || (snapL[k] == l && snapU[k] == u) ||
        (strL[k] == l && strU[k] == u);
      k++
    :: else -> break
    od;
#ifdef ADMIN
    ok = ok || (snapL[OA] == l && snapU[OA] == u);
#endif
    if :: ok -> u++ :: else -> break fi
  :: else -> break
  od;
  assert(u < NU);   /* model bound: a uuid is free */
  k = 0; ok = 0
}
