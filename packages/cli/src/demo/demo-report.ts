import { type FatesStore, Status } from '@fate/core';

/** What one demo process said it finished (a killed process's last reports are lost). */
export interface Tally {
  completed: number;
  failed: number;
}

/** The SIGKILL of one process and who resumed its work. */
export interface KillRecord {
  readonly instance: string;
  readonly at: number;
  /** Transactions it held when it was killed. */
  readonly held: ReadonlySet<string>;
  resumedAt?: number;
  by?: string;
}

/** This run's orders as the store has them. */
export interface OrderCounts {
  readonly successful: number;
  readonly failed: number;
  /** FAILED with every step undone. */
  readonly undone: number;
  /** One FAILED order, to show. */
  readonly aFailedId?: string;
}

/** Counts this run's finished orders in the store: the truth, whatever the processes reported. */
export async function countOrders(store: FatesStore, opName: string): Promise<OrderCounts> {
  const rows = await store.list({ statuses: [Status.SUCCESSFUL, Status.FAILED], opName });
  const failed = rows.filter((r) => r.status === Status.FAILED);
  return {
    successful: rows.length - failed.length,
    failed: failed.length,
    undone: failed.filter((r) => r.stackDepth === 0).length,
    ...(failed[0] ? { aFailedId: failed[0].id } : {}),
  };
}

export interface DemoReport {
  readonly orders: number;
  readonly opName: string;
  readonly counts: OrderCounts;
  readonly tally: ReadonlyMap<string, Tally>;
  readonly kill: KillRecord | undefined;
  readonly elapsedS: number;
}

export function printReport(r: DemoReport): void {
  const { counts, kill } = r;
  console.log('');
  console.log('  instance     completed  failed+undone   (as each process reported)');
  for (const [instance, t] of [...r.tally.entries()].sort()) {
    const mark = instance === kill?.instance ? '  (killed)' : '';
    console.log(
      `  ${instance.padEnd(11)} ${String(t.completed).padStart(10)} ${String(t.failed).padStart(14)}${mark}`,
    );
  }
  console.log('');
  const other = r.orders - counts.successful - counts.failed;
  console.log(
    `  in the store, this run (op ${r.opName}): ${counts.successful} SUCCESSFUL, ${counts.failed} FAILED (${counts.undone} fully undone), ${other} other`,
  );
  if (kill) {
    const recovery = kill.resumedAt
      ? `${kill.resumedAt - kill.at} ms (resumed on ${kill.by})`
      : 'not observed';
    console.log(
      `  recovery after SIGKILL of ${kill.instance}: ${recovery}; it held ${kill.held.size} transactions`,
    );
  }
  console.log(
    `  throughput: ${r.orders} transactions in ${r.elapsedS.toFixed(1)} s = ${(r.orders / r.elapsedS).toFixed(0)} tx/s`,
  );
}

/** The admin commands that look at what the demo left in its store, ready to paste. */
export function adminHints(
  invokedAs: string,
  url: string,
  opName: string,
  failedId: string | undefined,
): string[] {
  const store = `--store ${shellQuote(url)}`;
  return [
    '  look at what it left:',
    `    ${invokedAs} summary ${store}`,
    `    ${invokedAs} list --op ${opName} --status FAILED ${store}`,
    ...(failedId ? [`    ${invokedAs} show ${failedId} ${store}`] : []),
  ];
}

/** Quotes `text` for a POSIX shell unless it is made only of characters that need none. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
