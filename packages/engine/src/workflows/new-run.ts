import { packEvent } from '@tributary/sandbox';
import { newId } from '../ids.js';
import { queueKeyFor } from './queue-keys.js';
import type { NewRun } from './workflow-store.js';

/**
 * A run to store for `version` of a workflow: a new id, the event as stored text (an HTTP event
 * packed: its body once, not three times; `runEvent` rebuilds it), and the queue key its
 * concurrency setting gives. One place for it, so a run started by the API, a trigger or a
 * BullMQ timer job is queued alike.
 */
export function newRun(input: {
  readonly workflowId: string;
  readonly version: number;
  readonly trigger: NewRun['trigger'];
  readonly event: unknown;
  readonly concurrency: number | undefined;
  readonly now: number;
}): NewRun {
  const id = newId('wfr');
  const packed = packEvent(input.event ?? null);
  return {
    id,
    workflowId: input.workflowId,
    version: input.version,
    trigger: input.trigger,
    event: JSON.stringify(packed.event),
    eventPacking: packed.packing,
    createdAt: input.now,
    queueKey: queueKeyFor(input.workflowId, id, input.concurrency),
  };
}
