import type { Output } from './output.js';

interface ReportedError {
  readonly code: string;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>> | undefined;
}

/** The messages of `details.errors`: each prop that failed when several did at once. */
function propMessages(details: ReportedError['details']): string[] {
  const listed = details?.['errors'];
  if (!Array.isArray(listed)) return [];
  return listed.flatMap((entry: unknown) =>
    typeof entry === 'object' && entry !== null && typeof (entry as { message?: unknown }).message === 'string'
      ? [(entry as { message: string }).message]
      : [],
  );
}

/**
 * An error for the terminal: `error <CODE>: <message>`; when several props failed at once, a
 * head line saying how many and then one line per prop, so each is read on its own.
 */
export function errorLines(output: Output, error: ReportedError, suffix = ''): string[] {
  const head = `${output.style('red', 'error')} ${error.code}:`;
  const props = propMessages(error.details);
  if (props.length < 2) return [`${head} ${error.message}${suffix}`];
  return [`${head} ${props.length} props are not valid${suffix}`, ...props.map((message) => `  - ${message}`)];
}

/** A stack's "at …" lines, to print under its error: the stack's first line repeats the message. */
export function stackFrames(stack: string | undefined): string[] {
  if (!stack) return [];
  return stack
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at '));
}
