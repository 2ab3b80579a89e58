#!/usr/bin/env node
import { runDemo } from './demo/demo.js';

const [command = 'help', ...rest] = process.argv.slice(2);

function flag(name: string): string | undefined {
  const i = rest.indexOf(`--${name}`);
  return i >= 0 ? rest[i + 1] : undefined;
}

const USAGE = `usage: fate <command>
  demo [--store URL] [--orders N] [--processes P]   the main job: workers, a kill, recovery`;

switch (command) {
  case 'demo':
    await runDemo({
      ...(flag('store') ? { store: flag('store') } : {}),
      ...(flag('orders') ? { orders: Number(flag('orders')) } : {}),
      ...(flag('processes') ? { processes: Number(flag('processes')) } : {}),
    });
    break;
  default:
    console.log(USAGE);
    process.exitCode = command === 'help' ? 0 : 2;
}
