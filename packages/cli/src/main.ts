import { runCli } from './program.js';
import { createOutput } from './ui/output.js';

/** The process entry of the `tributary` binary: the one place that touches process streams and exit. */
export async function main(): Promise<void> {
  // Bundles carry inline source maps, so stack traces point at the author's own files and lines.
  process.setSourceMapsEnabled(true);
  // A reader that goes away (`tributary events -f | head`) ends the command quietly.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
  const output = createOutput({ stdout: process.stdout, stderr: process.stderr });
  process.exitCode = await runCli(process.argv, output);
}
