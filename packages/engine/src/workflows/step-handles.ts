import type { ComponentHandle } from '@tributary/sandbox';

/** Step components with a handle kept, at most; past it the least recently used is dropped. */
export const MAX_STEP_HANDLES = 1000;

/**
 * The sandbox handle of each step component, opened once and kept. A saved component never
 * changes (new code is a new id) and a step's calls are concurrent (they use none of a handle's
 * one-at-a-time queue), so one handle serves every run; opening one per call leased a worker
 * only to read what it had loaded. A handle whose open failed is opened again next time.
 */
export class StepHandles {
  /** In order of last use, least recent first. */
  private readonly byComponent = new Map<string, Promise<ComponentHandle>>();
  /** The handles whose open resolved, for callers that need no turn of the event loop to get one. */
  private readonly opened = new Map<string, ComponentHandle>();

  constructor(
    private readonly open: (componentId: string) => Promise<ComponentHandle>,
    private readonly max = MAX_STEP_HANDLES,
  ) {}

  get(componentId: string): Promise<ComponentHandle> {
    let handle = this.byComponent.get(componentId);
    if (handle) {
      this.byComponent.delete(componentId);
    } else {
      const opening = this.open(componentId);
      handle = opening;
      opening.then(
        (opened) => {
          if (this.byComponent.get(componentId) === opening) this.opened.set(componentId, opened);
        },
        () => {
          if (this.byComponent.get(componentId) === opening) this.byComponent.delete(componentId);
        },
      );
    }
    this.byComponent.set(componentId, handle);
    if (this.byComponent.size > this.max) {
      const [oldest] = this.byComponent.keys();
      if (oldest !== undefined) {
        this.byComponent.delete(oldest);
        this.opened.delete(oldest);
      }
    }
    return handle;
  }

  /** The handle of `componentId` if it is open already (as `get` would give it), else undefined. */
  known(componentId: string): ComponentHandle | undefined {
    const handle = this.opened.get(componentId);
    if (handle === undefined) return undefined;
    const promise = this.byComponent.get(componentId);
    if (promise === undefined) return undefined;
    this.byComponent.delete(componentId);
    this.byComponent.set(componentId, promise);
    return handle;
  }
}
