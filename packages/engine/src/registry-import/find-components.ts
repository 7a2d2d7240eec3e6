import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const COMPONENT_FILE = /\.(mjs|cjs|js|ts)$/;
const NOT_A_COMPONENT = /(\.app\.|\.test\.|\.d\.ts$|^test-event\.)/;

/**
 * The component files of a package laid out as Pipedream publishes them: `actions/**` and
 * `sources/**`, without the shared `common/` folders, app files, test events and tests.
 *
 * The choice is made by reading the text (a component defines `key:` and `version:`), not by
 * loading the module: package code never runs in the server's process, and a module that looks
 * like a component but does not load is reported against its file by the sandbox instead of
 * vanishing from the report.
 */
export function findComponentFiles(packageDir: string): string[] {
  const found: string[] = [];
  for (const top of ['actions', 'sources']) walk(path.join(packageDir, top), found);
  return found.map((file) => path.relative(packageDir, file)).sort();
}

function walk(dir: string, found: string[]): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'common' && entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(full, found);
      continue;
    }
    if (!entry.isFile() || !COMPONENT_FILE.test(entry.name) || NOT_A_COMPONENT.test(entry.name)) continue;
    if (looksLikeComponent(readFileSync(full, 'utf8'))) found.push(full);
  }
}

function looksLikeComponent(text: string): boolean {
  return /\bkey\s*:/.test(text) && /\bversion\s*:/.test(text);
}
