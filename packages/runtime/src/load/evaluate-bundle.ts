import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { AppError } from '@tributary/contracts';
import type { ComponentBundle } from './bundle-component.js';

export interface EvaluateOptions {
  /** Where bundles are written before import; defaults to a folder in the OS temp directory. */
  readonly bundleDir?: string;
}

const identity = <T>(value: T): T => value;

/** Workflow code steps use a global `defineComponent`; the runtime provides it (contract §1.1). */
function installGlobals(): void {
  const scope = globalThis as Record<string, unknown>;
  scope['defineComponent'] ??= identity;
}

/**
 * Imports a bundle and returns its default export. Bundles are written under a content hash so an
 * unchanged bundle is imported once and an edited one becomes a fresh module.
 */
export async function evaluateBundle(bundle: ComponentBundle, options: EvaluateOptions = {}): Promise<unknown> {
  installGlobals();
  const dir = options.bundleDir ?? path.join(os.tmpdir(), 'tributary-bundles');
  mkdirSync(dir, { recursive: true });
  const hash = createHash('sha256').update(bundle.code).digest('hex').slice(0, 24);
  const file = path.join(dir, `${path.basename(bundle.entry).replace(/[^\w.-]/g, '_')}-${hash}.mjs`);
  if (!existsSync(file)) writeFileSync(file, bundle.code);
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new AppError('COMPONENT_LOAD_FAILED', `${bundle.entry}: evaluating the module threw: ${message}`, {
      file: bundle.entry,
    }, { cause: error });
  }
  return namespace['default'];
}
