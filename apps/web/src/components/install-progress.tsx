/**
 * Live npm install lines under a Save, Deploy or Run button: code that imports packages makes
 * the server install them first, which can take many seconds, and a silent button would look hung.
 * `useInstallProgress().track(work)` watches the installs while `work` runs; `<InstallProgress>`
 * shows them as they happen ("Installing ms@2.1.3 …", "Installed ms@2.1.3 in 1.4 s").
 */
import { useCallback, useMemo, useRef, useState } from 'react';
import { installSummary, installText, withInstallWatch, type InstallEventT } from '../api/install-stream.js';

export interface InstallTracker {
  /** The install events of the newest tracked work, oldest first. */
  readonly events: readonly InstallEventT[];
  /** True while tracked work runs. */
  readonly active: boolean;
  /** Runs `work` with its installs shown; the lines of earlier work are cleared first. */
  readonly track: <T>(work: () => Promise<T>) => Promise<T>;
  /** "installed ms@2.1.3 in 1.4 s" for a toast once the work is done, or null when nothing was installed. */
  readonly summary: () => string | null;
}

export function useInstallProgress(): InstallTracker {
  const [events, setEvents] = useState<readonly InstallEventT[]>([]);
  const [active, setActive] = useState(false);
  // The toast is written in the mutation's onSuccess, before React renders the last event.
  const latest = useRef<readonly InstallEventT[]>([]);
  const track = useCallback(async <T,>(work: () => Promise<T>): Promise<T> => {
    latest.current = [];
    setEvents([]);
    setActive(true);
    try {
      return await withInstallWatch((event) => {
        latest.current = [...latest.current, event];
        setEvents(latest.current);
      }, work);
    } finally {
      setActive(false);
    }
  }, []);
  const summary = useCallback(() => installSummary(latest.current), []);
  return useMemo(() => ({ events, active, track, summary }), [events, active, track, summary]);
}

/** Adds the install summary to a toast's message: "Deployed x (installed ms@2.1.3 in 1.4 s)". */
export function withSummary(message: string, tracker: InstallTracker): string {
  const summary = tracker.summary();
  return summary ? `${message} (${summary})` : message;
}

export function InstallProgress({ tracker }: { readonly tracker: InstallTracker }) {
  // One line per install: `installing` (spinning) until it ends, then how it ended, in its place.
  // Installs of one request run one at a time, so an end closes the oldest open install.
  const lines: { key: number; event: InstallEventT }[] = [];
  const open: number[] = [];
  tracker.events.forEach((event, index) => {
    if (event.phase === 'installed' || event.phase === 'failed') {
      const at = open.shift();
      if (at !== undefined) {
        lines[at] = { key: lines[at]?.key ?? index, event };
        return;
      }
    }
    if (event.phase === 'installing') open.push(lines.length);
    lines.push({ key: index, event });
  });
  const shown = lines.flatMap(({ key, event }) => {
    const text = installText(event);
    return text === null ? [] : [{ key, phase: event.phase, text }];
  });
  // Always in the document: a live region announces what is added to it, not what it starts with.
  return (
    <div className="install-progress" role="status" aria-live="polite" aria-label="npm installs">
      {shown.length > 0 ? (
        <ul>
          {shown.map((line) => (
            <li key={line.key} className={`install-line install-${line.phase}`}>
              {line.phase === 'installing' ? <span className="spinner" aria-hidden="true" /> : null}
              {line.text}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
