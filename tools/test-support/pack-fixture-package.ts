/**
 * Packs a package of components under fixtures/packages/ into an npm tarball, as `npm publish`
 * would ship it, so registry imports are tested from a file spec without the network. `edit`
 * changes files of a copy first (a newer version for upgrade tests).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const FIXTURE_PACKAGES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/packages');

export function packFixturePackage(name: string, outDir: string, edit?: (dir: string) => void): string {
  const copy = mkdtempSync(path.join(os.tmpdir(), 'tributary-fixture-package-'));
  try {
    cpSync(path.join(FIXTURE_PACKAGES, name), copy, { recursive: true });
    edit?.(copy);
    const output = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', outDir], {
      cwd: copy,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const [packed] = JSON.parse(output) as { filename: string }[];
    return path.join(outDir, packed?.filename ?? '');
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** Rewrites one JSON file of a package copy (its package.json, usually). */
export function editJson(file: string, change: (value: Record<string, unknown>) => void): void {
  const value = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  change(value);
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}
