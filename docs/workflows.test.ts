/**
 * docs/workflows.md: the workflow files it shows (JSON and YAML) are the fixtures (byte for byte), each a valid
 * workflow, and its codes table names only codes of the registry. Its console block runs through
 * examples-run.test.ts like every `<!-- cli-output -->` block.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ERROR_CODES, WorkflowSpec } from '@tributary/contracts';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseBlocks, readPages, REPO } from './doc-test-helpers.js';

const page = readPages().find((candidate) => candidate.name === 'workflows.md');
if (!page) throw new Error('docs/workflows.md is missing');
const MARKER = /^workflow-file:\s*(\S+)$/;

describe('docs/workflows.md', () => {
  const files = parseBlocks(page).filter((block) => MARKER.test(block.marker ?? ''));

  it('shows workflow files exactly as they are in fixtures, and each is a valid workflow', () => {
    expect(files.length).toBeGreaterThan(0);
    for (const block of files) {
      const file = MARKER.exec(block.marker ?? '')?.[1] ?? '';
      expect(['json', 'yaml']).toContain(block.lang);
      const text = readFileSync(path.join(REPO, file), 'utf8');
      expect(`${block.content}\n`).toBe(text);
      const parsed: unknown = block.lang === 'yaml' ? parseYaml(text) : JSON.parse(text);
      expect(WorkflowSpec.safeParse(parsed).success).toBe(true);
    }
  });

  it('names only registry codes in its errors table', () => {
    const section = page.text.slice(page.text.indexOf('## Errors'));
    const codes = [...section.matchAll(/^\| `([A-Z_]+)`/gm)].map((match) => match[1] ?? '');
    expect(codes.length).toBeGreaterThan(5);
    expect(codes.filter((code) => !(code in ERROR_CODES))).toEqual([]);
  });
});
