/** Fields of a structured log line: ids of what it is about (`source_id`, `invocation_id`…), counts, codes. */
export type LogFields = Readonly<Record<string, string | number | boolean | null | undefined>>;

type LogMethod = (fields: LogFields, message: string) => void;

/**
 * The engine's structured log: pino's `Logger` fits it as is (`tributary start` passes one), and
 * `messageLogger` fits a plain line writer. `child` binds the ids of a source, workflow, run or
 * invocation to every line written through it. Lines never carry an API key or an endpoint id.
 */
export interface Logger {
  readonly error: LogMethod;
  readonly warn: LogMethod;
  readonly info: LogMethod;
  readonly debug: LogMethod;
  child(bindings: LogFields): Logger;
}

/**
 * A structured log on a function that writes one line of text (tests, `tributary dev`): the message,
 * then its fields as `key=value`. Debug lines are dropped: they are the per-invocation detail a
 * plain log has no level to hide.
 */
export function messageLogger(write: (message: string) => void, bound: LogFields = {}): Logger {
  const line: LogMethod = (fields, message) => {
    const suffix = Object.entries({ ...bound, ...fields })
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${key}=${String(value)}`)
      .join(' ');
    write(suffix === '' ? message : `${message} (${suffix})`);
  };
  return {
    error: line,
    warn: line,
    info: line,
    debug: () => undefined,
    child: (bindings) => messageLogger(write, { ...bound, ...bindings }),
  };
}
