import type { StreamStatus } from '../api/sse.js';

const TEXT: Record<StreamStatus, string> = {
  connecting: 'Connecting…',
  open: 'Live',
  reconnecting: 'Connection lost — reconnecting…',
};

/** Says whether the live stream is connected; a lost connection is announced, not hidden. */
export function StreamBadge({ status }: { readonly status: StreamStatus }) {
  return (
    <span className={`stream-badge stream-${status}`} role="status" aria-live="polite" data-stream-status={status}>
      <span className="dot" aria-hidden="true" /> {TEXT[status]}
    </span>
  );
}
