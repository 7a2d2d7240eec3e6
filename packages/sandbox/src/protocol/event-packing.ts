/**
 * An HTTP event (contract §3.5) carries its body up to three times: `bodyRaw`, its alias `rawBody`
 * and `body`, parsed from it. Across the IPC channel one copy is enough when the others can be
 * rebuilt exactly on the other side, so the host sends a packed event (the same keys in the same
 * order, the rebuildable values as null) and names how to rebuild them:
 * - `raw`: `rawBody` is `bodyRaw`;
 * - `text`: `rawBody` and `body` are `bodyRaw` (a text or urlencoded body);
 * - `json`: `bodyRaw` and `rawBody` are `JSON.stringify(body)` (the caller sent compact JSON, the
 *   common case: serializing the parsed body gives back the very text sent, whatever crossed JSON).
 * Any other event is sent as it is. The worker's event is then the same, key for key and in the
 * same order, as the one the host would have sent whole.
 */
import { z } from 'zod';
import { isFields } from './is-fields.js';

export const EventPacking = z.enum(['raw', 'text', 'json']);
export type EventPacking = z.infer<typeof EventPacking>;

export interface PackedEvent {
  readonly event: unknown;
  readonly packing: EventPacking | null;
}

type Fields = Record<string, unknown>;

/**
 * Packed forms by event object: a workflow run's steps share one trigger event, and each step (and
 * each expression evaluation) would otherwise check its body again.
 */
const packedEvents = new WeakMap<object, PackedEvent>();

export function packEvent(event: unknown): PackedEvent {
  if (!isFields(event)) return { event, packing: null };
  const known = packedEvents.get(event);
  if (known) return known;
  const packed = packFields(event);
  packedEvents.set(event, packed);
  return packed;
}

function packFields(event: Fields): PackedEvent {
  const raw = event['bodyRaw'];
  if (typeof raw !== 'string' || event['rawBody'] !== raw) return { event, packing: null };
  if (!Object.hasOwn(event, 'body')) return { event: { ...event, rawBody: null }, packing: 'raw' };
  const body = event['body'];
  if (body === raw) return { event: { ...event, rawBody: null, body: null }, packing: 'text' };
  if (body !== undefined && JSON.stringify(body) === raw)
    return { event: { ...event, bodyRaw: null, rawBody: null }, packing: 'json' };
  return { event: { ...event, rawBody: null }, packing: 'raw' };
}

/** Rebuilds, in place, the values `packEvent` left out (the event came fresh from the channel). */
export function unpackEvent(event: unknown, packing: EventPacking): unknown {
  if (!isFields(event)) return event;
  switch (packing) {
    case 'raw':
      event['rawBody'] = event['bodyRaw'];
      return event;
    case 'text':
      event['rawBody'] = event['bodyRaw'];
      event['body'] = event['bodyRaw'];
      return event;
    case 'json': {
      const text = JSON.stringify(event['body']);
      event['bodyRaw'] = text;
      event['rawBody'] = text;
      return event;
    }
  }
}

/** `steps` with its trigger event packed (workflow steps and expression evaluations). */
export function packSteps(steps: Readonly<Record<string, unknown>>): {
  readonly steps: Record<string, unknown>;
  readonly packing: EventPacking | null;
} {
  const trigger = steps['trigger'];
  if (!isFields(trigger)) return { steps: { ...steps }, packing: null };
  const packed = packEvent(trigger['event']);
  if (packed.packing === null) return { steps: { ...steps }, packing: null };
  return { steps: { ...steps, trigger: { ...trigger, event: packed.event } }, packing: packed.packing };
}

/**
 * `steps` with its trigger event rebuilt when it is first read, not before: a step that never reads
 * `steps.trigger.event` (most read earlier steps' results, or nothing) costs no rebuild. Until that
 * first read the packed event is reachable through nothing else, so it is rebuilt from exactly what
 * crossed; from then on `event` is a plain property again.
 */
export function unpackSteps(steps: Record<string, unknown>, packing: EventPacking): Record<string, unknown> {
  const trigger = steps['trigger'];
  if (!isFields(trigger) || !Object.hasOwn(trigger, 'event')) return steps;
  const packed = trigger['event'];
  let event: unknown;
  let known = false;
  const settle = (value: unknown): unknown => {
    event = value;
    known = true;
    try {
      Object.defineProperty(trigger, 'event', { value, writable: true, enumerable: true, configurable: true });
    } catch {
      // A step froze `steps.trigger` first: the accessor stays, and gives this same event.
    }
    return value;
  };
  Object.defineProperty(trigger, 'event', {
    get: () => (known ? event : settle(unpackEvent(packed, packing))),
    set: settle,
    enumerable: true,
    configurable: true,
  });
  return steps;
}
