export {
  dropPostgresSchema,
  dropRedisPrefix,
  dropZkTree,
  openZkSession,
  removeZkTree,
  type ZkSessionLike,
  type ZkTreeClient,
} from './namespaces.js';
export { type PostgresTestService, startPostgres } from './postgres-service.js';
export {
  type RedisCluster,
  type RedisClusterOptions,
  type RedisShard,
  startRedisCluster,
} from './redis-cluster.js';
export { type RedisTestService, startRedis } from './redis-service.js';
export { type RedisTlsTestService, startRedisTls } from './redis-tls-service.js';
export * from './support.js';
export { makeTestCertificates, type TestCertificates } from './tls-certs.js';
export {
  type EnsembleOptions,
  startZooKeeperEnsemble,
  type ZooKeeperEnsemble,
} from './zookeeper-ensemble.js';
export { zooKeeperConnections } from './zookeeper-process.js';
export { startZooKeeper, type ZooKeeperTestService } from './zookeeper-service.js';
