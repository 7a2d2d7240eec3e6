/**
 * Every code example on the docs pages is a real file: a ```js block preceded by
 * `<!-- example: fixtures/components/docs/NAME.mjs -->` must be identical to that file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { danglingMarkers, EXAMPLES_DIR, parseBlocks, readPages, REPO, type Block } from './doc-test-helpers.js';

const pages = readPages();
const blocks = pages.flatMap(parseBlocks);
const EXAMPLE = /^example:\s*(\S+)$/;
const exampleBlocks = blocks.filter((block) => block.marker !== null && EXAMPLE.test(block.marker));
const where = (block: Block): string => `${block.page}:${block.line}`;
const referenced = (block: Block): string => EXAMPLE.exec(block.marker ?? '')?.[1] ?? '';

describe('docs code examples', () => {
  it('has pages and examples to check', () => {
    expect(pages.map((page) => page.name)).toEqual(
      expect.arrayContaining([
        'README.md',
        'components.md',
        'props.md',
        'methods-and-hooks.md',
        'run-and-emit.md',
        'actions.md',
        'cli.md',
        'errors.md',
        'component-api.md',
        'quickstart-source.md',
        'quickstart-action.md',
        'sse.md',
        'environment-variables.md',
        'lifecycle.md',
      ]),
    );
    expect(exampleBlocks.length).toBeGreaterThanOrEqual(25);
  });

  it('marks every js block with the file it shows', () => {
    const unmarked = blocks.filter(
      (block) => ['js', 'javascript', 'mjs', 'cjs'].includes(block.lang) && !exampleBlocks.includes(block),
    );
    expect(unmarked.map(where)).toEqual([]);
  });

  it('uses example markers only on js blocks, and every marker is followed by a block', () => {
    expect(exampleBlocks.filter((block) => block.lang !== 'js').map(where)).toEqual([]);
    expect(
      pages.flatMap((page) => danglingMarkers(page).map((found) => `${page.name}:${found.line} ${found.marker}`)),
    ).toEqual([]);
  });

  it.each(exampleBlocks.map((block) => [where(block), referenced(block), block] as const))(
    '%s shows %s exactly',
    (_where, file, block) => {
      expect(file.startsWith(`${EXAMPLES_DIR}/`), `${file} must live in ${EXAMPLES_DIR}/`).toBe(true);
      const absolute = path.join(REPO, file);
      expect(existsSync(absolute), `${file} is referenced by ${where(block)} but does not exist`).toBe(true);
      expect(`${block.content}\n`).toBe(readFileSync(absolute, 'utf8'));
    },
  );

  it('shows every file of the examples folder on some page', () => {
    const files = readdirSync(path.join(REPO, EXAMPLES_DIR)).map((name) => `${EXAMPLES_DIR}/${name}`);
    const shown = new Set(exampleBlocks.map(referenced));
    expect(files.filter((file) => !shown.has(file))).toEqual([]);
  });
});
