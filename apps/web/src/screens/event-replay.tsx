/**
 * Replay of an event: the source's `run` again, with this event's payload as its input event
 * (POST /v1/sources/{id}/run with `event`, as `tributary run-now --event` does). The toast links
 * to the invocation's logs.
 */
import { useMutation } from '@tanstack/react-query';
import type { DeployedSourceT, EventSummaryT } from '../api/endpoints.js';
import { useApi } from '../auth/session.js';
import { useToast } from '../components/toasts.js';

export function ReplayButton({ source, event }: { readonly source: DeployedSourceT; readonly event: EventSummaryT }) {
  const api = useApi();
  const toast = useToast();
  const replay = useMutation({
    mutationFn: () => api.runSource(source.id, event.event),
    onSuccess: (queued) =>
      toast({
        message: `Replaying event ${event.id}: run queued as ${queued.invocation_id}`,
        tone: 'success',
        links: [{ to: `/sources/${source.id}/logs#invocation-${queued.invocation_id}`, label: 'Logs' }],
      }),
    onError: (error) => toast({ message: `Replay failed: ${error.message}`, tone: 'error' }),
  });
  return (
    <button
      type="button"
      className="button button-small"
      title="Run the source again with this event's payload as its input"
      aria-disabled={replay.isPending}
      onClick={() => {
        if (!replay.isPending) replay.mutate();
      }}
    >
      {replay.isPending ? 'Replaying…' : 'Replay'}
    </button>
  );
}
