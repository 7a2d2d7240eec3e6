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
    const first = registry.of('u_local\nrun:/cache/a.mjs');
    first.recentMs = 2;
    expect(registry.of('u_local\nrun:/cache/a.mjs')).toBe(first);
    expect(registry.of('u_other\nrun:/cache/a.mjs')).not.toBe(first);
    expect(registry.size).toBe(2);
  });

  it('keeps at most its limit, dropping the least recently used first', () => {
    const registry = new GatheringRegistry(3);
    const a = registry.of('a');
    registry.of('b');
    registry.of('c');
    expect(registry.of('a')).toBe(a); // now the most recent: b is the oldest
    registry.of('d');
    expect(registry.size).toBe(3);
    expect(registry.of('a')).toBe(a);
    expect(registry.size).toBe(3); // 'b' went; asking for it again makes a new one and drops 'c'
    const b = registry.of('b');
    expect(b.recentMs).toBeNull();
    expect(registry.size).toBe(3);
  });

  it('never drops a gathering with calls waiting to go out, even past its limit', () => {
    const registry = new GatheringRegistry(2);
    const busy = registry.of('busy');
    busy.calls.push({} as (typeof busy.calls)[number]);
    registry.of('x');
    registry.of('y');
    registry.of('z');
    expect(registry.of('busy')).toBe(busy);
    expect(registry.size).toBe(2);
  });

  it('defaults to a limit that a server with many code updates stays under', () => {
    const registry = new GatheringRegistry();
    for (let version = 0; version < MAX_GATHERINGS + 500; version += 1)
      registry.of(`u_local\nrun:/cache/v${version}.mjs`);
    expect(registry.size).toBe(MAX_GATHERINGS);
  });
});
