/**
 * One simulated process: it can pause (its backend calls and step code wait until it
 * resumes, as under SIGSTOP or a long GC), have its heartbeats stalled, or crash (nothing
 * of it ever runs again: its pending calls and steps never return).
 */
export class SimProcess {
  readonly name: string;
  #pausedUntil = 0;
  #stalledUntil = 0;
  #dead = false;
  #waiters: Array<() => void> = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #died: () => void = () => undefined;
  /** Resolves when this process crashes (what it was doing then never ends). */
  readonly died = new Promise<void>((resolve) => {
    this.#died = resolve;
  });

  constructor(name: string) {
    this.name = name;
  }

  get dead(): boolean {
    return this.#dead;
  }

  get paused(): boolean {
    return performance.now() < this.#pausedUntil;
  }

  /** Heartbeats are held (not failed) while this is true. */
  get stalled(): boolean {
    return performance.now() < this.#stalledUntil;
  }

  pause(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, performance.now() + ms);
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#wake(), this.#pausedUntil - performance.now());
  }

  stallHeartbeats(ms: number): void {
    this.#stalledUntil = Math.max(this.#stalledUntil, performance.now() + ms);
  }

  /** Ends pauses and stalls now (the quiet end of a run). */
  heal(): void {
    this.#pausedUntil = 0;
    this.#stalledUntil = 0;
    this.#wake();
  }

  crash(): void {
    this.#dead = true;
    this.#waiters = [];
    this.#died();
  }

  /** Resolves when this process may run; never, once it crashed. */
  async gate(): Promise<void> {
    while (this.#dead || this.paused) {
      if (this.#dead) return new Promise<void>(() => undefined);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Waits `ms` of this process's time: a pause in between stretches it. */
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    await this.gate();
  }

  #wake(): void {
    if (this.paused) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}
