export { type RedisTestService, startRedis } from './redis-service.js';
export * from './support.js';
export { startZooKeeper, type ZooKeeperTestService } from './zookeeper-service.js';
