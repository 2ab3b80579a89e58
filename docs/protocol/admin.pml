/* admin.pml: an admin client (the CLI's `fate cancel`, `fate fail`, `fate delete`) and,
 * with -DAGEOFF, age-off's sweep. Included by fate.pml with -DADMIN. */

#ifndef ADMIN_OPS
#define ADMIN_OPS 7   /* the changes it may make: 1 cancel, 2 fail, 4 delete */
#endif

/* The status allows the change: cancel NEW/SUBMITTED (refuseUnlessCancellable); fail any
 * but finished (FAILABLE); delete NEW/SUBMITTED/SUCCESSFUL/FAILED (ALLOWED.delete). */
#define ALLOWS(op) (((op) == 1 && stSub) || ((op) == 2 && !stDone) || ((op) == 4 && (stDone || stSub)))

/* One admin command: a client that is not live (no liveness record, no lease; its lock id
 * is LA), which reserves the transaction, checks its status again and changes it. */
proctype Admin() {
  byte k, u, op;
  bit sc[NLK + 1], sp[NLK + 1], sg[NLK + 1];
  bit ok, resync, kill, allowed;
  adminGo || stDone;   /* it starts at any tick, or once the transaction finished */
  atomic {
    if :: (ADMIN_OPS & 1) -> op = 1 :: (ADMIN_OPS & 2) -> op = 2 :: (ADMIN_OPS & 4) -> op = 4 fi;
    /* readExisting, requireStatus / refuseUnlessCancellable: refused at once */
    if
    :: !up || !seeded || !ALLOWS(op) ->
      printf("%d: admin op %d refused at once (absent, or status)\n", ticks, op); goto out
    :: else -> printf("%d: admin op %d begins\n", ticks, op)
    fi
  }
turn:
  /* fail, delete: adminReserve → whileHeld; cancel: Fate.cancel → store.reserve → untilFree */
  atomic {
    hot++;
    assert(hot <= 1);   /* p7: every turn pauses */
    if :: !up -> goto out :: else fi;   /* a store error ends the command */
    /* attempt: tryReserve(id), no start */
    if
    :: seeded && stLock == 0 ->
      freshUuid(LA, u);
      stLock = LA; stUuid = u; stInc = 255; aU = u; aHandle = 1; cutA = 0;
      allowed = ALLOWS(op);   /* the status as reserved: checked again below */
      printf("%d: admin reserves u%d\n", ticks, u);
      goto change
    :: else
    fi;
    /* store.read(id) */
#ifdef MUTANT_ADMIN_HOT
    if :: stLock == 0 -> goto turn :: else fi;   /* the old loop: unreserved, so at once again */
#endif
    if :: !seeded -> printf("%d: admin: deleted meanwhile (FATE_NOT_FOUND)\n", ticks); goto out :: else fi;
    if :: printf("%d: admin: its deadline (FATE_TIMEOUT)\n", ticks); goto out :: true fi;   /* any turn */
    /* unreserved, or cancel (untilFree only waits): pause */
    if :: stLock == 0 || op == 1 -> goto pause :: else fi;
    /* held (fail, delete): clearDeadReservations(only this id), no sweep of strays: list it
     * FIRST, then observe liveness, then judge its holder (DeadHolders.clearDead) */
    snapL[OA] = stLock; snapU[OA] = stUuid;
    SLOW(10);
    readInstances(OA, ok);
    if :: !ok -> goto out :: else fi;
    observe(OA);
    kill = 0;
    if :: snapL[OA] != LA -> judge(OA, snapL[OA], kill) :: else fi;
#ifdef MUTANT_ADMIN_EAGER
    kill = 1;   /* clears whoever holds it, unjudged */
#endif
    if :: kill -> clearRes(snapL[OA], snapU[OA]) :: else fi;
pause:
    snapL[OA] = 0; snapU[OA] = 0; kill = 0; ok = 0; k = 0;
    k = 0;
    do
    :: k <= NLK -> sc[k] = 0; sp[k] = 0; sg[k] = 0; k++
    :: else -> break
    od;
    k = 0;
    slpA = 1
  }
  slpA == 0;   /* its pause: until the next tick */
  goto turn;
change:
  SLOW(11);      /* between its reservation and its change */
  atomic {
    /* the status again, as reserved (changeReserved, Fate.cancel); then one fenced commit */
    if
    :: up && stLock == LA && stUuid == aU ->
      assert(!cutA);   /* p4 */
      if
      :: allowed ->
        P1A;
        if :: op != 2 -> assert(stDone || !began) :: else fi;   /* p6 */
        if
        :: op == 1 -> stDone = 1; stSub = 0; printf("%d: admin cancels: FAILED\n", ticks)
        :: op == 2 -> stFail = 1; stSub = 0; printf("%d: admin fails it: FAILED_IN_PROGRESS\n", ticks)
        :: op == 4 -> seeded = 0; gone = 1; stDone = 0; stSub = 0; stFail = 0; stProg = 0;
          stDefer = 0; printf("%d: admin deletes it\n", ticks)
        fi
      :: else -> printf("%d: admin: refused as reserved, unreserves\n", ticks)
      fi;
      stLock = 0; stInc = 255
    :: else -> printf("%d: admin's change rejected (not reserved, or store away)\n", ticks)
    fi;
    aHandle = 0; cutA = 0; allowed = 0
  }
out:
  skip
}
