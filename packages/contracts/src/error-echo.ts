/**
 * The runtime logs a step's thrown error as an error line too, so live logs (`tributary dev`, a
 * source's logs) show it; a step's result (the web app's run inspector, the CLI's run output) shows the
 * error on its own, with its stack. The index of the last log line that only repeats that error, or -1.
 */
export function errorEchoIndex(
  logs: readonly { readonly level: string; readonly message: string }[],
  error: { readonly code: string; readonly message: string; readonly stack?: string | undefined } | null,
): number {
  if (!error) return -1;
  for (let index = logs.length - 1; index >= 0; index -= 1) {
    const line = logs[index];
    if (!line || line.level !== 'error') continue;
    const { message } = line;
    if (message === error.message || message === error.stack || message.startsWith(`${error.code}: ${error.message}`))
      return index;
  }
  return -1;
}

/** The log lines to show beside a step's or run's error: all but the one that only repeats it. */
export function withoutErrorEcho<Line extends { readonly level: string; readonly message: string }>(
  logs: readonly Line[],
  error: Parameters<typeof errorEchoIndex>[1],
): Line[] {
  const echo = errorEchoIndex(logs, error);
  return logs.filter((_, index) => index !== echo);
}
