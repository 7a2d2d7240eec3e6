import { randomBytes } from 'node:crypto';
import { mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppError, isAppError, type SerializedError, errorMessage } from '@tributary/contracts';
import {
  importBundle,
  validateComponent,
  type Component,
  type ValidationIssue,
  type ValidationPurpose,
} from '@tributary/runtime/worker';

interface Slot {
  readonly component: Component | null;
  readonly error: SerializedError | null;
}

export interface SlotLoad {
  readonly slot: string;
  readonly bundleName: string;
  readonly code: string;
  readonly entry: string;
  readonly purpose: ValidationPurpose;
}

/**
 * The components this worker holds, by slot. A bundle arrives as code (workers may not read the
 * cache's bundles folder) and is imported once per content however many slots use it; Node 20
 * never frees an imported module, so the host replaces a worker that has loaded many instead of
 * unloading them here.
 */
export class ComponentSlots {
  private readonly modules = new Map<string, Promise<{ readonly exported: unknown }>>();
  private readonly slots = new Map<string, Slot>();
  private readonly dir = path.join(os.tmpdir(), '.tributary-bundles');

  async load(request: SlotLoad): Promise<{ component: Component | null; issues: readonly ValidationIssue[] }> {
    try {
      const { exported } = await this.importOnce(request);
      const { component, issues } = validateComponent(exported, request.purpose);
      const firstError = issues.find((issue) => issue.level === 'error')?.message ?? 'invalid';
      this.slots.set(request.slot, {
        component,
        error: component ? null : { code: 'COMPONENT_INVALID', message: firstError },
      });
      return { component, issues };
    } catch (error) {
      const serialized: SerializedError = isAppError(error)
        ? error.toJSON()
        : { code: 'INTERNAL', message: errorMessage(error) };
      this.slots.set(request.slot, { component: null, error: serialized });
      throw error;
    }
  }

  get(slot: string): Component {
    const found = this.slots.get(slot);
    if (found?.component) return found.component;
    if (found?.error) throw new AppError(found.error.code, found.error.message);
    throw new AppError('INTERNAL', `no component is loaded in this worker under "${slot}"`);
  }

  private importOnce(request: SlotLoad): Promise<{ readonly exported: unknown }> {
    let exported = this.modules.get(request.bundleName);
    if (!exported) {
      exported = this.importCode(request);
      // A failed import is retried by the next load rather than remembered.
      exported.catch(() => this.modules.delete(request.bundleName));
      this.modules.set(request.bundleName, exported);
    }
    return exported;
  }

  /**
   * Writes the code under an unguessable name in this worker's private temporary folder, imports
   * it (so source maps and `import.meta.url` work as for any file) and removes the file, so the
   * other components of this worker cannot read it afterwards.
   */
  private async importCode(request: SlotLoad): Promise<{ readonly exported: unknown }> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = path.join(this.dir, `${randomBytes(12).toString('hex')}-${request.bundleName}`);
    writeFileSync(file, request.code, { flag: 'wx', mode: 0o600 });
    try {
      return await importBundle(file, request.entry);
    } finally {
      unlinkSync(file);
    }
  }
}
