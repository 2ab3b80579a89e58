export { type PostgresTestService, startPostgres } from './postgres-service.js';
export {
  type RedisCluster,
  type RedisClusterOptions,
  type RedisShard,
  startRedisCluster,
} from './redis-cluster.js';
export { type RedisTestService, startRedis } from './redis-service.js';
export * from './support.js';
export { startZooKeeperEnsemble, type ZooKeeperEnsemble } from './zookeeper-ensemble.js';
export { startZooKeeper, type ZooKeeperTestService } from './zookeeper-service.js';
