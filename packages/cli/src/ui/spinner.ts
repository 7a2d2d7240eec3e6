import { createSpinner } from 'nanospinner';
import type { Output } from './output.js';


/**
 * A spinner on stderr while `work` waits, only on a terminal; elsewhere nothing is drawn so
 * pipes and logs stay clean.
 */
export async function withSpinner<T>(output: Output, text: string, work: () => Promise<T>): Promise<T> {
  if (!output.isTty || !process.stderr.isTTY) return work();
  const spinner = createSpinner(text, { stream: process.stderr }).start();
  try {
    return await work();
  } finally {
    spinner.stop();
    spinner.clear();
  }
}
