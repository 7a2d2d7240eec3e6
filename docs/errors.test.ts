/**
 * docs/errors.md lists every code of the error registry, in the registry's order, with the same HTTP
 * status and category. The comparison is a function so its own failure modes are tested too.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '@tributary/contracts';
import { describe, expect, it } from 'vitest';
import { DOCS } from './doc-test-helpers.js';

interface Row {
  readonly code: string;
  readonly status: number;
  readonly category: string;
  readonly description: string;
}

interface RegistryEntry {
  readonly status: number;
  readonly category: string;
}

const cells = (line: string): string[] =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cell.trim().replace(/^`(.*)`$/, '$1'));

/** Reads the table under "## Codes": a header `Code | HTTP status | Category | Description`, then one row per code. */
export function parseCodesTable(markdown: string): Row[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === '## Codes');
  if (start === -1) throw new Error('errors.md has no "## Codes" heading');
  let i = start + 1;
  while (i < lines.length && !(lines[i] ?? '').trim().startsWith('|')) {
    if ((lines[i] ?? '').startsWith('#')) throw new Error('no table under "## Codes"');
    i += 1;
  }
  const header = cells(lines[i] ?? '').map((cell) => cell.toLowerCase());
  if (header.join(' | ') !== 'code | http status | category | description') {
    throw new Error(`unexpected header of the codes table: ${header.join(' | ')}`);
  }
  if (!/^\|?\s*:?-{3,}/.test((lines[i + 1] ?? '').trim())) throw new Error('the codes table has no separator row');
  const rows: Row[] = [];
  for (i += 2; i < lines.length && (lines[i] ?? '').trim().startsWith('|'); i += 1) {
    const [code = '', status = '', category = '', description = '', ...rest] = cells(lines[i] ?? '');
    if (rest.length > 0) throw new Error(`row has more than 4 cells: ${lines[i]}`);
    rows.push({ code, status: Number(status), category, description });
  }
  return rows;
}

/** Every difference between the table and the registry, as readable lines (empty when they agree). */
export function compareWithRegistry(rows: readonly Row[], registry: Readonly<Record<string, RegistryEntry>>): string[] {
  const problems: string[] = [];
  const codes = Object.keys(registry);
  const listed = rows.map((row) => row.code);
  for (const code of codes) if (!listed.includes(code)) problems.push(`missing: ${code}`);
  for (const row of rows) if (!Object.hasOwn(registry, row.code)) problems.push(`extra: ${row.code}`);
  const seen = new Set<string>();
  for (const row of rows) {
    if (seen.has(row.code)) problems.push(`duplicate: ${row.code}`);
    seen.add(row.code);
    const entry = registry[row.code];
    if (!entry) continue;
    if (row.status !== entry.status)
      problems.push(`status of ${row.code}: docs ${row.status}, registry ${entry.status}`);
    if (row.category !== entry.category)
      problems.push(`category of ${row.code}: docs ${row.category}, registry ${entry.category}`);
    if (row.description.length < 10) problems.push(`description of ${row.code} is missing`);
  }
  const common = listed.filter((code) => Object.hasOwn(registry, code));
  const expectedOrder = codes.filter((code) => listed.includes(code));
  if (problems.length === 0 && common.join(',') !== expectedOrder.join(',')) {
    problems.push(`order differs: docs ${common.join(', ')}; registry ${expectedOrder.join(', ')}`);
  }
  return problems;
}

const markdown = readFileSync(path.join(DOCS, 'errors.md'), 'utf8');
const registry = ERROR_CODES as Readonly<Record<string, RegistryEntry>>;

describe('docs/errors.md', () => {
  it('lists exactly the codes of the registry, in order, with their status and category', () => {
    const rows = parseCodesTable(markdown);
    expect(rows.length).toBeGreaterThan(0);
    expect(compareWithRegistry(rows, registry)).toEqual([]);
    expect(rows.map((row) => row.code)).toEqual(Object.keys(ERROR_CODES));
  });

  it('states the exit code of each category as the CLI applies it', () => {
    // user and internal → 2, component → 1 (packages/cli/src/exit-codes.ts); the page has one row per category.
    const section = markdown.slice(markdown.indexOf('## Categories'), markdown.indexOf('## Codes'));
    const table = Object.fromEntries(
      section
        .split('\n')
        .filter((line) => /^\|\s*`/.test(line))
        .map((line) => {
          const [category = '', , exit = ''] = cells(line);
          return [category, Number(exit)];
        }),
    );
    expect(table).toEqual({ user: 2, component: 1, internal: 2 });
    const categories = new Set(Object.values(registry).map((entry) => entry.category));
    expect([...categories].sort()).toEqual(Object.keys(table).sort());
  });
});

describe('the codes-table check itself', () => {
  const rows = parseCodesTable(markdown);
  const without = (code: string): Row[] => rows.filter((row) => row.code !== code);

  it('fails when a code is missing', () => {
    expect(compareWithRegistry(without('TIMEOUT'), registry)).toEqual(['missing: TIMEOUT']);
  });

  it('fails when the page lists a code the registry does not have', () => {
    const extra = [
      ...rows,
      { code: 'NOT_A_CODE', status: 400, category: 'user', description: 'Made up for this test.' },
    ];
    expect(compareWithRegistry(extra, registry)).toEqual(['extra: NOT_A_CODE']);
  });

  it('fails when a status or a category differs', () => {
    const changed = rows.map((row) =>
      row.code === 'PROP_INVALID' ? { ...row, status: 422, category: 'component' } : row,
    );
    expect(compareWithRegistry(changed, registry)).toEqual([
      'status of PROP_INVALID: docs 422, registry 400',
      'category of PROP_INVALID: docs component, registry user',
    ]);
  });

  it('fails when the order differs or a row is repeated', () => {
    const [first, second, ...rest] = rows;
    if (!first || !second) throw new Error('the table needs at least two rows');
    expect(compareWithRegistry([second, first, ...rest], registry)[0]).toMatch(/^order differs/);
    expect(compareWithRegistry([...rows, first], registry)).toEqual([`duplicate: ${first.code}`]);
  });

  it('fails on a table without the expected header', () => {
    expect(() => parseCodesTable('## Codes\n\n| Name | Status |\n| --- | --- |\n| `X` | 400 |\n')).toThrow(
      /unexpected header/,
    );
  });
});
