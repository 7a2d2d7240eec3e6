import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { AppError, errorMessage } from '@tributary/contracts';

const identity = <T>(value: T): T => value;

/** Workflow code steps use a global `defineComponent`; the runtime provides it (contract §1.1). */
function installGlobals(): void {
  const scope = globalThis as Record<string, unknown>;
  scope['defineComponent'] ??= identity;
}

/**
 * Writes a bundle under a name derived from its content, so an unchanged bundle is imported once
 * and an edited one becomes a fresh module. Returns the file's path.
 */
export function writeBundle(bundle: { readonly entry: string; readonly code: string }, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const hash = createHash('sha256').update(bundle.code).digest('hex').slice(0, 24);
  const file = path.join(dir, `${path.basename(bundle.entry).replace(/[^\w.-]/g, '_')}-${hash}.mjs`);
  if (!existsSync(file)) writeFileSync(file, bundle.code, { mode: 0o644 });
  return file;
}

/**
 * Imports a written bundle and returns its default export (`export default` or `module.exports`),
 * boxed: a promise never resolves to the author's value itself, since resolving reads its `then`,
 * which a getter or a Proxy can make throw (or turn into another value) outside any check.
 */
export async function importBundle(file: string, entry: string = file): Promise<{ readonly exported: unknown }> {
  installGlobals();
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const message = errorMessage(error);
    throw new AppError(
      'COMPONENT_LOAD_FAILED',
      `${entry}: evaluating the module threw: ${message}`,
      { file: entry },
      { cause: error },
    );
  }
  return { exported: namespace['default'] };
}
