import type { ComponentHandle } from '@tributary/sandbox';
import { describe, expect, it } from 'vitest';
import { StepHandles } from './step-handles.js';

/** Stands in for a sandbox handle: StepHandles only keeps what `open` gave. */
const handleFor = (componentId: string) => ({ componentId }) as unknown as ComponentHandle;

describe('StepHandles', () => {
  it('opens each step component once and gives every later run the same handle', async () => {
    const opened: string[] = [];
    const handles = new StepHandles((componentId) => {
      opened.push(componentId);
      return Promise.resolve(handleFor(componentId));
    });
    const [a, b, again] = await Promise.all([handles.get('sc_a'), handles.get('sc_b'), handles.get('sc_a')]);
    expect(again).toBe(a);
    expect(b).not.toBe(a);
    expect(await handles.get('sc_a')).toBe(a);
    expect(opened).toEqual(['sc_a', 'sc_b']);
  });

  it('opens a component again after its open failed', async () => {
    let attempts = 0;
    const handles = new StepHandles((componentId) => {
      attempts += 1;
      return attempts === 1 ? Promise.reject(new Error('worker gone')) : Promise.resolve(handleFor(componentId));
    });
    await expect(handles.get('sc_a')).rejects.toThrow('worker gone');
    await expect(handles.get('sc_a')).resolves.toBeTruthy();
    expect(attempts).toBe(2);
  });

  it('keeps at most its limit, dropping the least recently used first', async () => {
    const opened: string[] = [];
    const handles = new StepHandles((componentId) => {
      opened.push(componentId);
      return Promise.resolve(handleFor(componentId));
    }, 2);
    await handles.get('sc_a');
    await handles.get('sc_b');
    await handles.get('sc_a'); // now the most recent: sc_b is the oldest
    await handles.get('sc_c'); // drops sc_b
    await handles.get('sc_a');
    await handles.get('sc_b');
    expect(opened).toEqual(['sc_a', 'sc_b', 'sc_c', 'sc_b']);
  });

  it('gives an opened handle without a turn of the event loop, and nothing before its open resolved or after it was dropped', async () => {
    const handles = new StepHandles((componentId) => Promise.resolve(handleFor(componentId)), 1);
    const opening = handles.get('sc_a');
    expect(handles.known('sc_a')).toBeUndefined();
    const a = await opening;
    expect(handles.known('sc_a')).toBe(a);
    await handles.get('sc_b'); // drops sc_a
    expect(handles.known('sc_a')).toBeUndefined();
    expect(handles.known('sc_b')).toBeDefined();
  });
});
