// The READMEs' TypeScript examples are copies of the files beside this one, which
// `npm run typecheck` compiles (and vitest runs): this keeps the copies true.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const blocksOf = (readme: string) =>
  [...readFileSync(join(root, readme), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map(
    (m) => m[1] ?? '',
  );
const blocks = blocksOf('README.md');
const conformanceBlocks = blocksOf('packages/conformance/README.md');
const examples = readdirSync(import.meta.dirname)
  .filter((f) => f.endsWith('.ts') && f !== 'readme.test.ts')
  .map((f) => readFileSync(join(import.meta.dirname, f), 'utf8'));

it('has TypeScript examples in the READMEs', () => {
  expect(blocks.length).toBeGreaterThanOrEqual(2);
  expect(conformanceBlocks.length).toBeGreaterThanOrEqual(1);
});

it.each(blocks.map((code, i) => ({ i, code })))(
  'README example $i is a compiled file of docs/examples',
  ({ code }) => {
    expect(examples).toContain(code);
  },
);

it.each(conformanceBlocks.map((code, i) => ({ i, code })))(
  'packages/conformance/README.md example $i is a compiled file of docs/examples',
  ({ code }) => {
    expect(examples).toContain(code);
  },
);
