export * from './support.js';
export { startRedis } from './redis-service.js';
export { startZooKeeper } from './zookeeper-service.js';
