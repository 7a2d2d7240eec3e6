import { AppError } from '@tributary/contracts/errors';

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
