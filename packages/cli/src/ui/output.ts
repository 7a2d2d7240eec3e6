import { inspect, styleText } from 'node:util';

type Style = Parameters<typeof styleText>[0];

/** Where a command writes. Commands print through this, never through console, so tests can read it. */
export interface Output {
  readonly isTty: boolean;
  out(text: string): void;
  err(text: string): void;
  json(value: unknown): void;
  style(style: Style, text: string): string;
}

export function createOutput(options: {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly color?: boolean;
}): Output {
  const color = options.color ?? (options.stdout.isTTY === true && !process.env['NO_COLOR']);
  return {
    isTty: options.stdout.isTTY === true,
    out: (text) => void options.stdout.write(`${text}\n`),
    err: (text) => void options.stderr.write(`${text}\n`),
    json: (value) => void options.stdout.write(`${JSON.stringify(value)}\n`),
    style: (style, text) => (color ? styleText(style, text) : text),
  };
}

/** One-line rendering of a JSON value for human output. */
export function compact(value: unknown, max = 200): string {
  const text = value === undefined ? 'undefined' : (JSON.stringify(value) ?? inspect(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * An emitted event's payload for human output, or null when its summary already is that payload
 * (the default summary of an event emitted without one).
 */
export function payloadLine(event: unknown, summary: string): string | null {
  const text = compact(event);
  return text === summary ? null : text;
}

export function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}
