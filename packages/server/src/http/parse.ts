import { AppError } from '@tributary/contracts';
import type { z } from 'zod';

/** Validates a request part with its schema; every problem is listed in `details.issues`. */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown, where: 'body' | 'query'): z.infer<T> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({
    path: [where, ...issue.path.map(String)].join('.'),
    message:
      issue.code === 'unrecognized_keys'
        ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')}`
        : issue.message,
  }));
  const first = issues[0];
  throw new AppError('VALIDATION_FAILED', first ? `${first.path}: ${first.message}` : `invalid ${where}`, {
    issues,
    field: first?.path,
  });
}

/** JSON in an API request may nest this deep (reliability §5.2): deeper values overflow stacks downstream. */
export const MAX_JSON_DEPTH = 64;

/** Refuses a parsed body nested deeper than MAX_JSON_DEPTH, walking it without recursion. */
export function assertJsonDepth(value: unknown, where: 'body' | 'query'): void {
  const stack: [unknown, number][] = [[value, 1]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [current, depth] = next;
    if (current === null || typeof current !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) {
      throw new AppError('VALIDATION_FAILED', `${where}: JSON nested deeper than ${MAX_JSON_DEPTH} levels`, {
        field: where,
      });
    }
    for (const child of Object.values(current))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
}
