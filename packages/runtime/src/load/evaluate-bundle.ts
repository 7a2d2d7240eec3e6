import os from 'node:os';
import path from 'node:path';
import type { ComponentBundle } from './bundle-component.js';
import { importBundle, writeBundle } from './import-bundle.js';

export interface EvaluateOptions {
  /** Where bundles are written before import; defaults to a folder in the OS temp directory. */
  readonly bundleDir?: string;
}

/**
 * Writes a bundle and imports it in this process (tests and tools; components run in the
 * sandbox). The default export comes boxed, as from importBundle.
 */
export async function evaluateBundle(
  bundle: ComponentBundle,
  options: EvaluateOptions = {},
): Promise<{ readonly exported: unknown }> {
  const file = writeBundle(bundle, options.bundleDir ?? path.join(os.tmpdir(), 'tributary-bundles'));
  return importBundle(file, bundle.entry);
}
