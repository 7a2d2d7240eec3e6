/**
 * What a worker takes from its host. Invocation requests are checked on their frame (version, id,
 * slot, deadline, payload limit, the records the worker reads) and taken as they came, without the
 * copy a full parse makes of each record; every other request is parsed whole.
 */
import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, parseHostMessage } from '../src/protocol/messages.js';

const invocation = {
  kind: 'run',
  configured: { data: '{"seq":1}' },
  accounts: {},
  steps: { trigger: { event: { body: { seq: 1 } } } },
  state: { db: {}, dedupe: null },
};
const invoke = {
  v: PROTOCOL_VERSION,
  type: 'invoke',
  id: 'r1',
  slot: 'bundle.mjs',
  timeoutMs: 1000,
  maxPayloadBytes: 6_000_000,
  ...invocation,
};

describe('parseHostMessage', () => {
  it('takes an invocation request from this build as it came', () => {
    expect(parseHostMessage(invoke)).toBe(invoke);
    const each = { ...invoke, type: 'invoke_each', items: [invocation, invocation] };
    expect(parseHostMessage(each)).toBe(each);
    const batch = {
      ...invoke,
      type: 'invoke_batch',
      events: [{}],
      configured: {},
      accounts: {},
      state: invocation.state,
    };
    expect(parseHostMessage(batch)).toBe(batch);
  });

  it('refuses an invocation request of another protocol version or without the fields the worker reads', () => {
    expect(parseHostMessage({ ...invoke, v: PROTOCOL_VERSION - 1 })).toBeNull();
    expect(parseHostMessage({ ...invoke, slot: undefined })).toBeNull();
    expect(parseHostMessage({ ...invoke, state: null })).toBeNull();
    expect(parseHostMessage({ ...invoke, configured: [] })).toBeNull();
    expect(parseHostMessage({ ...invoke, type: 'invoke_each', items: [] })).toBeNull();
    expect(parseHostMessage({ ...invoke, type: 'invoke_each', items: [{ ...invocation, accounts: 'x' }] })).toBeNull();
    expect(parseHostMessage({ ...invoke, type: 'invoke_batch', events: 'x' })).toBeNull();
    expect(parseHostMessage(null)).toBeNull();
  });

  it('parses other requests whole: unknown keys are dropped and a malformed one is refused', () => {
    const props = {
      v: PROTOCOL_VERSION,
      type: 'props',
      id: 'p1',
      slot: 's',
      configured: {},
      accounts: {},
      timeoutMs: 5,
    };
    expect(parseHostMessage({ ...props, extra: true })).toEqual(props);
    expect(parseHostMessage({ ...props, timeoutMs: -1 })).toBeNull();
    expect(parseHostMessage({ ...props, type: 'unknown' })).toBeNull();
  });
});
