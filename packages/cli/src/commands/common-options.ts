import { AppError } from '@tributary/contracts';
import type { Command } from 'commander';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** The prop flags shared by run, dev and options. */
export function addPropOptions(command: Command): Command {
  return command
    .option('--prop <NAME=VALUE>', 'set a prop; non-string props parse VALUE as JSON (repeatable)', collect)
    .option('--props <JSON>', 'set several props from one JSON object')
    .option(
      '--auth <APP=JSON>',
      'credentials for an app prop, by app slug or prop name, seen as this.<app>.$auth (repeatable); apps that take none need none',
      collect,
    );
}

export function parseSeconds(value: string, flag: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new AppError('USAGE_ERROR', `${flag} must be a positive number of seconds, got "${value}"`, { field: flag });
  }
  return Math.round(seconds * 1000);
}

export function parseCount(value: string, flag: string, min = 0): number {
  const count = Number(value);
  if (!Number.isInteger(count) || count < min) {
    throw new AppError('USAGE_ERROR', `${flag} must be a whole number >= ${min}, got "${value}"`, { field: flag });
  }
  return count;
}
