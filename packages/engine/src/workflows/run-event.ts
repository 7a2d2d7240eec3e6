import { unpackEvent } from '@tributary/sandbox';
import type { RunRow } from './workflow-store.js';

/**
 * A run's trigger event: as its trigger gave it on a run stepped from memory, else parsed from its
 * stored text and, when that was packed (an HTTP event keeps its body once), rebuilt whole.
 */
export function runEvent(run: Pick<RunRow, 'event' | 'eventPacking' | 'eventValue'>): unknown {
  if (run.eventValue !== undefined) return run.eventValue;
  const event = JSON.parse(run.event) as unknown;
  return run.eventPacking ? unpackEvent(event, run.eventPacking) : event;
}
