import { createSpinner } from 'nanospinner';
import type { Output } from './output.js';

/**
 * A spinner on stderr while `work` waits, only on a terminal; elsewhere nothing is drawn so
 * pipes and logs stay clean.
 */
export async function withSpinner<T>(output: Output, text: string, work: () => Promise<T>): Promise<T> {
  if (!output.isTty || !process.stderr.isTTY) return work();
  // A terminal that reports 0 columns (some ptys) would make nanospinner clear endless lines.
  const stream = {
    write: (chunk: string) => process.stderr.write(chunk),
    get columns() {
      return process.stderr.columns || 80;
    },
  } as unknown as NodeJS.WriteStream;
  const spinner = createSpinner(text, { stream }).start();
  try {
    return await work();
  } finally {
    spinner.stop();
    spinner.clear();
  }
}
