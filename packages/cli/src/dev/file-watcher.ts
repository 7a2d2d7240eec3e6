import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

/**
 * Calls `onChange` once per burst of saves to any of `files`. Directories are watched rather than
 * files because editors often save by writing a new file and renaming it over the old one, which
 * ends a watch on the file itself. (A watcher library such as chokidar 5+ needs Node 22.)
 */
export class FileWatcher {
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: { readonly debounceMs: number; readonly onChange: (file: string) => void }) {}

  watch(files: readonly string[]): void {
    this.close();
    const byDir = new Map<string, Set<string>>();
    for (const file of files) {
      const dir = path.dirname(file);
      const names = byDir.get(dir) ?? new Set<string>();
      names.add(path.basename(file));
      byDir.set(dir, names);
    }
    for (const [dir, names] of byDir) {
      const watcher = watch(dir, (_event, filename) => {
        if (filename === null || !names.has(filename.toString())) return;
        clearTimeout(this.timer);
        this.timer = setTimeout(
          () => this.options.onChange(path.join(dir, filename.toString())),
          this.options.debounceMs,
        );
      });
      this.watchers.push(watcher);
    }
  }

  close(): void {
    clearTimeout(this.timer);
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
  }
}
