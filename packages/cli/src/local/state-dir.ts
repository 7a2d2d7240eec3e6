import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AppError, errorMessage } from '@tributary/contracts/errors';
import type { DedupeState, Json } from '@tributary/runtime';

/** What a local state directory keeps between runs: the component's db, dedupe state and endpoint. */
export interface LocalState {
  readonly version: 1;
  /** True once the deploy and activate hooks have run against this directory. */
  readonly deployed: boolean;
  readonly endpointId: string;
  readonly db: Record<string, Json>;
  readonly dedupe: DedupeState | null;
}

const FILE = 'state.json';

export function freshState(): LocalState {
  return { version: 1, deployed: false, endpointId: randomBytes(8).toString('hex'), db: {}, dedupe: null };
}

/** Reads `DIR/state.json`, or a fresh state when the directory is new. */
export function readState(dir: string): LocalState {
  const file = path.join(dir, FILE);
  if (!existsSync(file)) return freshState();
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalState>;
    if (parsed.version !== 1 || typeof parsed.endpointId !== 'string') throw new Error('unknown layout');
    return { ...freshState(), ...parsed } as LocalState;
  } catch (error) {
    const reason = errorMessage(error);
    throw new AppError('STATE_INVALID', `${file} cannot be read (${reason}); remove it to start from a fresh state`, {
      file,
    });
  }
}

/** Writes the state atomically (write to a temporary file, then rename), so a crash never leaves half a file. */
export function writeState(dir: string, state: LocalState): void {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(temporary, file);
}
