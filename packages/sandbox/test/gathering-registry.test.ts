/**
 * The sandbox keeps one call gathering per component and group: the same one for every handle on
 * it, and no more than its limit however many component versions it served, never dropping one
 * whose calls are still waiting to go out.
 */
import { describe, expect, it } from 'vitest';
import { GatheringRegistry, MAX_GATHERINGS } from '../src/host/gathering-registry.js';

describe('GatheringRegistry', () => {
  it('gives every handle on a component and group the same gathering', () => {
    const registry = new GatheringRegistry();
    const first = registry.of('u_local', 'run:/cache/a.mjs');
    first.recentMs = 2;
    expect(registry.of('u_local', 'run:/cache/a.mjs')).toBe(first);
    expect(registry.of('u_other', 'run:/cache/a.mjs')).not.toBe(first);
    expect(registry.size).toBe(2);
  });

  it('gives the components of one group one count of requests in flight, and each group its own', () => {
    const registry = new GatheringRegistry();
    const a = registry.of('u_local', 'run:/cache/a.mjs');
    const b = registry.of('u_local', 'run:/cache/b.mjs');
    const other = registry.of('u_other', 'run:/cache/a.mjs');
    expect(b.requests).toBe(a.requests);
    expect(other.requests).not.toBe(a.requests);
  });

  it('forgets a group none of its kept gatherings belongs to, unless a request of it is out', () => {
    const registry = new GatheringRegistry(1);
    const out = registry.of('out', 'a');
    out.requests.sending = 1;
    registry.of('idle', 'b');
    registry.of('last', 'c');
    // 'out' still has a request in flight: a new gathering of it counts that request.
    expect(registry.of('out', 'a').requests).toBe(out.requests);
    const idle = registry.of('idle', 'b');
    expect(idle.requests.sending).toBe(0);
  });

  it('keeps at most its limit, dropping the least recently used first', () => {
    const registry = new GatheringRegistry(3);
    const a = registry.of('g', 'a');
    registry.of('g', 'b');
    registry.of('g', 'c');
    expect(registry.of('g', 'a')).toBe(a); // now the most recent: b is the oldest
    registry.of('g', 'd');
    expect(registry.size).toBe(3);
    expect(registry.of('g', 'a')).toBe(a);
    expect(registry.size).toBe(3); // 'b' went; asking for it again makes a new one and drops 'c'
    const b = registry.of('g', 'b');
    expect(b.recentMs).toBeNull();
    expect(registry.size).toBe(3);
  });

  it('never drops a gathering with calls waiting to go out, even past its limit', () => {
    const registry = new GatheringRegistry(2);
    const busy = registry.of('g', 'busy');
    busy.calls.push({} as (typeof busy.calls)[number]);
    registry.of('g', 'x');
    registry.of('g', 'y');
    registry.of('g', 'z');
    expect(registry.of('g', 'busy')).toBe(busy);
    expect(registry.size).toBe(2);
  });

  it('defaults to a limit that a server with many code updates stays under', () => {
    const registry = new GatheringRegistry();
    for (let version = 0; version < MAX_GATHERINGS + 500; version += 1)
      registry.of('u_local', `run:/cache/v${version}.mjs`);
    expect(registry.size).toBe(MAX_GATHERINGS);
  });
});
