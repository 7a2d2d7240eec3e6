/**
 * The package layering of the design (architecture.md §2, docs/decisions/0005-layering.md) is an ESLint rule (eslint.config.js, LAYERS).
 * These run the repository's real ESLint configuration on small in-memory files placed in each
 * package's source folder: removing or loosening the rule fails them.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

let eslint: ESLint;

/** The layering errors ESLint reports for `code` as if it were the file at `file` (repo-relative). */
async function layeringErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO, file) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

describe('package layering lint rule', () => {
  beforeAll(() => {
    eslint = new ESLint({ cwd: REPO });
  });

  it('refuses the runtime, the sandbox and storage drivers in the server, naming the rule’s source', async () => {
    const file = 'packages/server/src/routes/layering-probe.ts';
    for (const specifier of ['@tributary/runtime', '@tributary/sandbox', 'kysely', 'better-sqlite3']) {
      const errors = await layeringErrors(file, `import { x } from '${specifier}';\nexport { x };\n`);
      expect(errors, specifier).toHaveLength(1);
      expect(errors[0]).toMatch(/packages\/server may import only @tributary\/engine, @tributary\/contracts/);
      expect(errors[0]).toMatch(/architecture\.md §2/);
    }
    // Type-only imports and re-exports count too: the rule is about the dependency, not the value.
    expect(
      await layeringErrors(file, "import type { X } from '@tributary/runtime';\nexport type { X };\n"),
    ).toHaveLength(1);
    expect(await layeringErrors(file, "export { x } from '@tributary/runtime';\n")).toHaveLength(1);
    expect(
      await layeringErrors(
        file,
        "import { Engine } from '@tributary/engine';\nimport { AppError } from '@tributary/contracts';\nexport { Engine, AppError };\n",
      ),
    ).toEqual([]);
  });

  it('holds every package to its row of the table', async () => {
    const cases: { file: string; specifier: string; allowed: boolean }[] = [
      { file: 'packages/contracts/src/probe.ts', specifier: 'zod', allowed: true },
      { file: 'packages/contracts/src/probe.ts', specifier: 'node:crypto', allowed: true },
      { file: 'packages/contracts/src/probe.ts', specifier: 'esbuild', allowed: false },
      { file: 'packages/contracts/src/probe.ts', specifier: '@tributary/runtime', allowed: false },
      { file: 'packages/runtime/src/probe.ts', specifier: '@tributary/contracts', allowed: true },
      { file: 'packages/runtime/src/probe.ts', specifier: '@tributary/sandbox', allowed: false },
      { file: 'packages/sandbox/src/probe.ts', specifier: '@tributary/runtime/worker', allowed: true },
      { file: 'packages/sandbox/src/probe.ts', specifier: '@tributary/engine', allowed: false },
      { file: 'packages/engine/src/probe.ts', specifier: '@tributary/sandbox', allowed: true },
      { file: 'packages/engine/src/probe.ts', specifier: '@tributary/runtime', allowed: true },
      { file: 'packages/engine/src/probe.ts', specifier: '@tributary/server', allowed: false },
      { file: 'packages/engine/src/probe.ts', specifier: '@tributary/cli', allowed: false },
      { file: 'apps/web/src/probe.tsx', specifier: '@tributary/contracts', allowed: true },
      { file: 'apps/web/src/probe.tsx', specifier: '@tributary/api-client', allowed: true },
      { file: 'apps/web/src/probe.tsx', specifier: '@tributary/engine', allowed: false },
      { file: 'packages/cli/src/probe.ts', specifier: '@tributary/sandbox', allowed: true },
      { file: 'packages/cli/src/probe.ts', specifier: '@tributary/server', allowed: true },
    ];
    for (const { file, specifier, allowed } of cases) {
      const errors = await layeringErrors(file, `import { x } from '${specifier}';\nexport { x };\n`);
      expect(errors, `${specifier} in ${file}`).toHaveLength(allowed ? 0 : 1);
    }
  });
});
