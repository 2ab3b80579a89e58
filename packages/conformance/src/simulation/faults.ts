/** What happens to one backend call. */
export type CallFault = 'none' | 'fail' | 'lose' | 'hang';

/**
 * One entry of a fault plan: after `gap` more backend calls (of any client) pass untouched,
 * the next one waits `delayMs` before reaching the store, then gets `fault`: `fail` (it
 * fails without reaching the store), `lose` (it applies, its reply is lost), `hang` (it
 * applies, its reply comes only after longer than a liveness timeout).
 */
export interface FaultDecision {
  readonly gap: number;
  readonly delayMs: number;
  readonly fault: CallFault;
}

const NONE: FaultDecision = { gap: 0, delayMs: 0, fault: 'none' };

/** A fault plan, consumed in order by every backend call of a world; `off()` ends it. */
export class FaultSchedule {
  readonly #plan: readonly FaultDecision[];
  #next = 0;
  #passed = 0;
  #off = false;

  constructor(plan: readonly FaultDecision[]) {
    this.#plan = plan;
  }

  /** The decision for the call being made now. */
  take(): FaultDecision {
    if (this.#off) return NONE;
    const d = this.#plan[this.#next];
    if (!d) return NONE;
    if (this.#passed < d.gap) {
      this.#passed++;
      return NONE;
    }
    this.#next++;
    this.#passed = 0;
    return d;
  }

  off(): void {
    this.#off = true;
  }
}
