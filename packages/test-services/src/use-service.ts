import { afterAll, beforeAll } from 'vitest';

/**
 * One service for the whole test file, from a module-level call: started before the file's
 * first test (or by the first factory that asks, whichever comes first) and stopped after
 * its last. Returns the getter fixtures await: the suites are declared synchronously, so a
 * service's URL can only be read inside a factory.
 *
 * @example
 * const redis = useService(() => startRedis());
 * runConformance({ name: 'redis', factory: async () => redisFixture((await redis()).url) });
 *
 * A separate entry point (`@fate/test-services/use-service`), so the service starters stay
 * usable outside vitest (the bench).
 */
export function useService<S extends { stop(): Promise<void> }>(
  start: () => Promise<S>,
): () => Promise<S> {
  let service: Promise<S> | undefined;
  const get = () => {
    service ??= start();
    return service;
  };
  beforeAll(async () => {
    await get();
  });
  afterAll(async () => {
    // a service that failed to start failed beforeAll already: nothing to stop
    const started = await service?.catch(() => undefined);
    await started?.stop();
  });
  return get;
}
