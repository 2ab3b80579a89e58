import { existsSync } from 'node:fs';
import { askTcp, hasBinary } from './support.js';

// What a single ZooKeeper server and an ensemble's servers share: the jars, the config
// lines, the JVM flags and the readiness probe.

/** The Debian package's jars (`apt-get install zookeeper`); the manifest names the rest. */
const ZOOKEEPER_JAR = '/usr/share/java/zookeeper.jar';
const CLASSPATH = [
  ZOOKEEPER_JAR,
  '/usr/share/java/zookeeper-jute.jar',
  '/usr/share/java/slf4j-api.jar',
  '/usr/share/java/slf4j-simple.jar',
  '/usr/share/java/netty-handler.jar',
  '/usr/share/java/netty-transport-native-epoll.jar',
].join(':');

/** Short ticks so tests may use session timeouts from 1 s (the minimum is 2 ticks). */
export const TICK_MS = 500;

/** True when ZooKeeper servers can be started from the Debian package here. */
export function hasLocalZooKeeper(): boolean {
  return existsSync(ZOOKEEPER_JAR) && hasBinary('java');
}

/** The zoo.cfg lines every test server has, single or in an ensemble. */
export function zooCfgLines(clientPort: number, dataDir: string): string[] {
  return [
    `tickTime=${TICK_MS}`,
    `minSessionTimeout=${2 * TICK_MS}`,
    'maxSessionTimeout=60000',
    `dataDir=${dataDir}`,
    `clientPort=${clientPort}`,
    'clientPortAddress=127.0.0.1',
    'maxClientCnxns=0',
    'admin.enableServer=false',
    '4lw.commands.whitelist=srvr,ruok,stat,cons',
    // Tests need speed, not durability against power loss.
    'forceSync=no',
  ];
}

/** The `java` arguments that run `mainClass` (standalone or quorum peer) on `cfg`. */
export function zooKeeperJavaArgs(
  mainClass: string,
  cfg: string,
  properties: readonly string[] = [],
): string[] {
  return [
    ...properties,
    '-Xmx256m',
    '-XX:+UseSerialGC',
    // The JIT's first tier starts fastest on small test machines.
    '-XX:TieredStopAtLevel=1',
    '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn',
    '-Dzookeeper.admin.enableServer=false',
    '-cp',
    CLASSPATH,
    `org.apache.zookeeper.server.${mainClass}`,
    cfg,
  ];
}

/**
 * The server's mode from the `srvr` four-letter command (`standalone`, `leader`,
 * `follower`), or undefined while it is not serving clients (`ruok` answers `imok` before
 * the server is ready; `srvr` names a mode only once it serves).
 */
export async function zooKeeperMode(host: string, port: number): Promise<string | undefined> {
  return /^Mode: (\w+)/m.exec(await askTcp(host, port, 'srvr'))?.[1];
}

/** The client connections a server holds now (`Connections:` of `srvr`); undefined when down. */
export async function zooKeeperConnections(
  host: string,
  port: number,
): Promise<number | undefined> {
  const found = /^Connections: (\d+)/m.exec(await askTcp(host, port, 'srvr').catch(() => ''));
  return found ? Number(found[1]) : undefined;
}

/** True when the server serves clients. */
export async function serving(host: string, port: number): Promise<boolean> {
  return (await zooKeeperMode(host, port)) !== undefined;
}
