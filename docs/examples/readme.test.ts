// The README's TypeScript examples are copies of the files beside this one, which
// `npm run typecheck` compiles (and vitest runs): this keeps the copies true.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
const examples = readdirSync(import.meta.dirname)
  .filter((f) => f.endsWith('.ts') && f !== 'readme.test.ts')
  .map((f) => readFileSync(join(import.meta.dirname, f), 'utf8'));

it('has TypeScript examples in the README', () => {
  expect(blocks.length).toBeGreaterThanOrEqual(2);
});

it.each(blocks.map((code, i) => ({ i, code })))(
  'README example $i is a compiled file of docs/examples',
  ({ code }) => {
    expect(examples).toContain(code);
  },
);
