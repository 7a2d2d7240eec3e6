import { AppError } from '@tributary/contracts';
import type { z } from 'zod';

/** Validates a request part with its schema; every problem is listed in `details.issues`. */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown, where: 'body' | 'query'): z.infer<T> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({
    path: [where, ...issue.path.map(String)].join('.'),
    message: issue.code === 'unrecognized_keys' ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')}` : issue.message,
  }));
  const first = issues[0];
  throw new AppError('VALIDATION_FAILED', first ? `${first.path}: ${first.message}` : `invalid ${where}`, { issues, field: first?.path });
}
