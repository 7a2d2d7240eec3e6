import type { InstallProgress } from '@tributary/sandbox';
import type { Output } from './output.js';

/** The stderr line of an npm install, the same for a local run and a deploy to a server; none for a cache hit. */
export function installLine(output: Output, progress: InstallProgress): string | null {
  switch (progress.phase) {
    case 'installing':
      return `${output.style('cyan', 'npm')} installing ${progress.packages.join(', ')} …`;
    case 'installed':
      return `${output.style('cyan', 'npm')} installed ${progress.packages.join(', ')} in ${(progress.durationMs / 1000).toFixed(1)} s`;
    case 'cached':
      return null;
    case 'failed':
      return `${output.style('red', 'npm')} installing ${progress.packages.join(', ')} failed after ${(progress.durationMs / 1000).toFixed(1)} s`;
  }
}
