type Testcontainers = typeof import('testcontainers');

/**
 * Loads testcontainers, the last resort when no local server binary exists but a Docker
 * engine does. It is an optional peer, not a dependency: its tree (dockerode, ssh2,
 * cpu-features, protobufjs) brings install scripts and native builds that the local-server
 * path never needs, so a missing package is one clear error here rather than an install
 * cost everywhere.
 */
export async function loadTestcontainers(
  service: string,
  urlVariable: string,
): Promise<Testcontainers> {
  try {
    return await import('testcontainers');
  } catch (cause) {
    const { code, message } = cause as { code?: string; message?: string };
    if (code === 'ERR_MODULE_NOT_FOUND' && message?.includes("'testcontainers'")) {
      throw new Error(
        `no local ${service} server was found and the tests would start one in Docker, but ` +
          'testcontainers is not installed: run `npm install --save-dev testcontainers`, ' +
          `install ${service} locally, or set ${urlVariable} to a running server.`,
        { cause },
      );
    }
    throw cause;
  }
}
