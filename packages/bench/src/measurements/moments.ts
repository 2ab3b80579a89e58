/**
 * The moment something happened to each transaction (its step's call began, it finished),
 * and who waits for which: a waiter may come before or after the moment.
 */
export class Moments {
  readonly #seen = new Map<string, number>();
  readonly #waiting = new Map<string, (at: number) => void>();

  record(id: string, at: number): void {
    const waiter = this.#waiting.get(id);
    if (waiter) {
      this.#waiting.delete(id);
      waiter(at);
    } else this.#seen.set(id, at);
  }

  /** When it happened to `id` (possibly before this call); rejects after `timeoutMs`. */
  of(id: string, timeoutMs: number): Promise<number> {
    const seen = this.#seen.get(id);
    if (seen !== undefined) {
      this.#seen.delete(id);
      return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        reject(new Error(`nothing happened to ${id} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#waiting.set(id, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }
}
