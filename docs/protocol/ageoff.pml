/* ageoff.pml: age-off's sweep (guard/age-off.ts ageOff, which the first engine runs off its
 * heartbeat: engine/age-off-sweep.ts AgeOffSweep), here engine A's. Included by fate.pml with -DAGEOFF. */

#ifndef AGEOFFS
#define AGEOFFS 2
#endif
byte sweeps = AGEOFFS;  /* deletes it may decide on */

proctype AgeOff() provided (!dead[0] && frozen[0] == 0) {
  byte k, u;
  bit ok;
next:
  /* ageOffDue: the backend's finish-time index, or list(SUCCESSFUL, FAILED) skipping rows
   * with a reservation, the stamp read off the listed row: old enough (retention
   * abstracted: any finished one may be due) */
  atomic {
    sweeps > 0 && up && seeded && stDone && stLock == 0 ->
    sweeps--; printf("%d: age-off decides to delete it\n", ticks)
  }
  /* others act here: a delete, and keyed seeding creating it again */
  atomic {
    /* tryReserve(id), no start, under A's lock id; absent or held: skipped. The batched
     * path (deleteAgedOff) is this same step: one conditional delete of what is still
     * unreserved, finished and due, with no reservation taken (the uuid is never seen) */
    if
    :: up && seeded && stLock == 0 ->
      freshUuid(LOCK(0), u);   /* held for this one step: nobody sees it */
#ifndef MUTANT_AGEOFF
      /* reserved: still finished (and still due)? Else unreserve and keep it */
      if :: !stDone -> printf("%d: age-off: not finished any more, kept\n", ticks); goto next :: else fi;
#endif
      assert(stDone);   /* p5: age-off deletes only finished transactions */
      seeded = 0; gone = 1; stDone = 0; stSub = 0; stFail = 0; stProg = 0; stDefer = 0;
      printf("%d: age-off deletes it\n", ticks)
    :: else -> printf("%d: age-off: absent or held, skipped\n", ticks)
    fi;
    u = 0; k = 0; ok = 0
  }
  goto next
}
