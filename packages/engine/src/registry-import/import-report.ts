import { countOf } from '@tributary/contracts';

/** One component of a package the import did not publish, and why. */
export interface SkippedComponent {
  /** Its path inside the package. */
  readonly file: string;
  /** Its key, when it got far enough to have one. */
  readonly key: string | null;
  readonly code: string;
  /** The validation rule it broke (C1–C17, P1–P14), when that was the reason. */
  readonly rule: string | null;
  readonly message: string;
}

export interface PublishedComponent {
  readonly key: string;
  readonly version: string | null;
  readonly component_id: string;
  readonly file: string;
}

/** What one `registry add` or `upgrade` did, component by component. */
export interface ImportReport {
  readonly package: string;
  readonly version: string;
  /** The version that was in the registry before, when another one was. */
  readonly previous_version: string | null;
  readonly published: readonly PublishedComponent[];
  readonly unchanged: readonly PublishedComponent[];
  readonly skipped: readonly SkippedComponent[];
  /** Keys the previous version published and this one no longer has. */
  readonly removed: readonly string[];
}

/** A step of an import, as progress lines for the CLI, the API and the web app. */
export type ImportProgress =
  | { readonly phase: 'resolving'; readonly spec: string }
  | { readonly phase: 'fetched'; readonly package: string; readonly version: string }
  | { readonly phase: 'found'; readonly count: number }
  | { readonly phase: 'installing'; readonly packages: readonly string[] }
  | { readonly phase: 'component'; readonly file: string; readonly index: number; readonly count: number }
  | { readonly phase: 'skipped'; readonly file: string; readonly code: string; readonly message: string }
  | { readonly phase: 'committing'; readonly count: number }
  | { readonly phase: 'done'; readonly published: number; readonly unchanged: number; readonly skipped: number };

/** One line of text for a progress step. */
export function describeProgress(progress: ImportProgress): string {
  switch (progress.phase) {
    case 'resolving':
      return `resolving ${progress.spec}`;
    case 'fetched':
      return `fetched ${progress.package}@${progress.version}`;
    case 'found':
      return `found ${countOf(progress.count, 'component')}`;
    case 'installing':
      return `installing ${progress.packages.join(', ')}`;
    case 'component':
      return `[${progress.index}/${progress.count}] ${progress.file}`;
    case 'skipped':
      return `skipped ${progress.file}: ${progress.code} ${progress.message}`;
    case 'committing':
      return `publishing ${countOf(progress.count, 'component')}`;
    case 'done':
      return `done: ${progress.published} published, ${progress.unchanged} unchanged, ${progress.skipped} skipped`;
  }
}
