/* member.pml: one engine's membership: heartbeat, observe, clear dead holders, release
 * orphans, and the reservation ledger's background clears. Included by fate.pml. */

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

