/** Requests kept in flight at once by scans, listings and repairs. */
export const PIPELINE_DEPTH = 64;

/**
 * Runs `fn` over `items` with at most `limit` calls in flight, keeping order. ZooKeeper
 * answers one session's requests in the order they were sent, so a window of requests
 * costs about one round trip instead of one each.
 */
export async function pipelined<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
