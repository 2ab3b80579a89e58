/* member.pml: one engine's membership: heartbeat, observe, clear dead holders, release
 * orphans, and the reservation ledger's background clears. Included by fate.pml. */

/* LeaseObserver.strays: into mask m, the other lock ids this observer knows, not gone, not
 * swept since they last renewed, for which cond holds (k is the lock id) */
#define STRAYS(m, cond) \
  m = 0; k = 1; \
  do \
  :: k <= NLK -> \
    if \
    :: k != LOCK(me) && known[OX(me, k)] && !sgone[OX(me, k)] && !swpt[OX(me, k)] && (cond) -> \
      m = m | (1 << k) \
    :: else \
    fi; \
    k++ \
  :: else -> break \
  od

/* Membership.#beat with ClientLiveness, DeadHolders and ReservationLedger. */
proctype Member(byte me) RUNS(me) {
  byte k;
  bit sc[NLK + 1], sp[NLK + 1], sg[NLK + 1];
  bit ok, resync, kill;
  byte cand, still;       /* lock ids as bit masks: stray when listed; still stray after the read */
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
      :: k < NO -> chg[OX(k, LOCK(me))] = 1; k++
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
  /* Membership.#beat → store.clearDeadReservations(share, { sweepStrays }) →
   * DeadHolders.clearDead; with -DSHARES its share may hold the transaction or not,
   * else every engine's share holds it */
    if :: !up -> goto wait :: else fi;
#ifndef MUTANT_A
    /* reservations FIRST, then observe liveness, then judge each holder */
#ifdef SHARES
    if :: snapL[me] = stLock; snapU[me] = stUuid :: skip fi;
#else
    snapL[me] = stLock; snapU[me] = stUuid;
#endif
#ifndef MUTANT_SWEEP
    /* #listStrays: holders stray as of the last observation, listed by lock id, also before the read */
    STRAYS(cand, watch[OX(me, k)] >= S);
    if :: (cand >> stLock) & 1 -> strL[me] = stLock; strU[me] = stUuid :: else fi;
#endif
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
    :: k <= NLK ->
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
    /* DeadHolders.#clear: conditional on the exact reservation listed */
    if
    :: kill -> SLOW(9); clearRes(snapL[me], snapU[me])
    :: else
    fi;
    /* the strays: still stray as of the read (LeaseObserver.strays(sent)): clear what was
     * listed under them, each exact reservation, and mark them swept (swept) */
#ifndef MUTANT_SWEEP
    STRAYS(still, ((cand >> k) & 1) && watch[OX(me, k)] + 1 >= S + age[me]);
#else
    /* the old order (#sweepStrays): judge them as of the read, then list each by lock id */
    STRAYS(still, watch[OX(me, k)] + 1 >= S + age[me]);
    SLOW(8);
    if :: !up -> goto wait :: (still >> stLock) & 1 -> strL[me] = stLock; strU[me] = stUuid :: else fi;
#endif
    if
    :: strL[me] != 0 && ((still >> strL[me]) & 1) ->
      printf("%d: inc %d sweeps stray lock %d\n", ticks, me, strL[me]); clearRes(strL[me], strU[me])
    :: else
    fi;
    k = 1;
    do
    :: k <= NLK -> if :: (still >> k) & 1 -> swpt[OX(me, k)] = 1 :: else fi; k++
    :: else -> break
    od;
#ifndef MUTANT_C
  /* DeadHolders.releaseOrphans (every reconcileMs): what the store keeps under our
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
    snapL[me] = 0; snapU[me] = 0; strL[me] = 0; strU[me] = 0; kill = 0; ok = 0;
    cand = 0; still = 0;
#ifdef MUTANT_A
    lapsed = 0;
#endif
    k = 0;
    do
    :: k <= NLK -> sc[k] = 0; sp[k] = 0; sg[k] = 0; k++
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
      :: k < NO -> chg[OX(k, LOCK(me))] = 1; k++
      :: else -> break
      od
    :: else
    fi;
    unc[me] = 0
  }
}

