import { readFileSync } from 'node:fs';

/** Reads between two walks of the process tree; in between, the leaves the last walk found are read. */
const WALK_EVERY = 10;

/**
 * Resident memory of a process and all its descendants, read from /proc. A worker inside
 * bubblewrap is a grandchild of the process the host spawned, so the tree is summed.
 *
 * The host reads this for every worker ten times a second on its main thread, so it reads as
 * little as it can: the short `statm` file rather than `status`, and only the tree's leaves (the
 * worker itself), the processes above them (bubblewrap's, a megabyte or two each that does not
 * change) being counted as the last walk of the tree found them. The tree is walked again every
 * `WALK_EVERY` reads and whenever a pid went away. A worker cannot start processes of its own (the
 * permission model refuses child processes), so the tree changes only while bubblewrap starts the
 * worker.
 */
export class ProcessTreeMemory {
  private leaves: number[] = [];
  /** Resident pages of the tree's inner processes at the last walk. */
  private innerPages = 0;
  private readsSinceWalk = 0;
  /** A process of the tree ended since the last walk (or there was none yet): walk before reading. */
  private stale = true;

  constructor(private readonly root: number) {}

  /** Bytes resident now, or null where /proc is not available. */
  rssBytes(): number | null {
    const pageSize = pageBytes();
    if (pageSize === null) return null;
    if (this.stale || this.readsSinceWalk >= WALK_EVERY) this.walk();
    this.readsSinceWalk += 1;
    let pages = this.innerPages;
    for (const pid of this.leaves) {
      const resident = residentPages(pid);
      if (resident === null) {
        this.stale = true;
        continue;
      }
      pages += resident;
    }
    return pages * pageSize;
  }

  /** Finds the tree's leaves and reads its inner processes, which the reads until the next walk count as they are. */
  private walk(): void {
    this.leaves = [];
    this.innerPages = 0;
    this.readsSinceWalk = 0;
    this.stale = false;
    for (const { pid, inner } of walk(this.root)) {
      if (!inner) {
        this.leaves.push(pid);
        continue;
      }
      const resident = residentPages(pid);
      if (resident === null) this.stale = true;
      else this.innerPages += resident;
    }
  }
}

function walk(root: number): { pid: number; inner: boolean }[] {
  const tree: { pid: number; inner: boolean }[] = [];
  const stack = [root];
  const seen = new Set<number>();
  while (stack.length > 0) {
    const current = stack.pop() as number;
    if (seen.has(current)) continue;
    seen.add(current);
    const children = childrenOf(current);
    tree.push({ pid: current, inner: children.length > 0 });
    for (const child of children) stack.push(child);
  }
  return tree;
}

/** The second field of /proc/<pid>/statm: resident pages (what VmRSS of /proc/<pid>/status counts). */
function residentPages(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ', 2);
    const resident = Number(fields[1]);
    return Number.isFinite(resident) ? resident : null;
  } catch {
    return null;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter((text) => text !== '')
      .map(Number);
  } catch {
    return [];
  }
}

let pageSize: number | null | undefined;

/**
 * The kernel's page size, which /proc counts in. Node does not expose it; its own resident size
 * is bytes (from the same counter), so the ratio to this process's resident pages gives it,
 * rounded to the power of two it is (4 KB on x86-64, up to 64 KB on some arm64 kernels).
 */
function pageBytes(): number | null {
  if (pageSize !== undefined) return pageSize;
  const pages = residentPages(process.pid);
  const bytes = process.memoryUsage.rss();
  pageSize = pages === null || pages <= 0 ? null : 2 ** Math.round(Math.log2(bytes / pages));
  return pageSize;
}
