import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { AppError } from '@tributary/contracts';
import type { LogEntry } from '@tributary/runtime';

/** Rewrites where code lives on this machine to the name its author knows it by, in any text. */
export type Relabel = (text: string) => string;

export const keepLabels: Relabel = (text) => text;

/**
 * The server keeps a component's code as `<code dir>/<hash>.mjs`; its errors and stacks (already
 * mapped to the author's lines by the bundle's source map) would name that path. This puts `label`
 * (such as `component.mjs`) in its place, as a path and as a `file://` URL.
 */
export function relabeler(file: string, label: string | undefined): Relabel {
  if (label === undefined || label === file) return keepLabels;
  const forms = [pathToFileURL(file).href, file];
  // A bundle uploaded with its source map names its files relative to the code (`lib/helper.mjs`):
  // stacks show them under the code folder, which is this machine's business, not the author's.
  const folder = path.dirname(file) + path.sep;
  const folders = [pathToFileURL(folder).href, folder];
  return (text) => {
    const labeled = forms.reduce((out, form) => out.split(form).join(label), text);
    return folders.reduce((out, form) => out.split(form).join(''), labeled);
  };
}

export function relabelError(error: AppError, relabel: Relabel): AppError {
  if (relabel === keepLabels) return error;
  const details = { ...error.details };
  if (typeof details.file === 'string') details.file = relabel(details.file);
  const relabeled = new AppError(error.code, relabel(error.message), details, { cause: error.cause });
  if (error.stack) relabeled.stack = relabel(error.stack);
  return relabeled;
}

export function relabelLog(entry: LogEntry, relabel: Relabel): LogEntry {
  return relabel === keepLabels ? entry : { ...entry, message: relabel(entry.message) };
}
