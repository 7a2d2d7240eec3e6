import { httpRequestValue } from '../props/http-request-prop.js';
import type { ResolvedProps } from '../props/resolve-props.js';
import { isPlainObject } from '../util/json.js';
import type { AppDefinition, AuthorFunction, Component } from '../types.js';

/** The pieces of `this` that depend on what kind of invocation is running. */
export interface ThisServices {
  /** `this.db` for every `$.service.db` prop. */
  readonly db?: unknown;
  /** `this.<http prop>`: `{ endpoint, respond }`. */
  readonly http?: unknown;
  /** `this.<timer prop>`. */
  readonly timer?: unknown;
  /** Sources only. */
  readonly emit?: (event: unknown, metadata?: unknown) => Promise<void>;
}

/**
 * An app prop's runtime value: the app's methods bound to this same object, plus `$auth`
 * (contract §2.6). Component props are deliberately not reachable from inside app methods.
 */
export function createAppInstance(
  definition: AppDefinition,
  auth: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const instance: Record<string, unknown> = {};
  Object.defineProperty(instance, '$auth', { value: Object.freeze({ ...auth }), enumerable: true });
  for (const [name, method] of Object.entries(definition.methods)) {
    instance[name] = method.bind(instance);
  }
  return instance;
}

/** Where a `this` keeps its props' values, read by the shared accessors below. */
const PROP_VALUES = Symbol('tributary.props');

type PropAccessors = Pick<PropertyDescriptor, 'get' | 'set'>;

/**
 * Each prop's getter and setter, made once per component and prop name. Accessors made afresh for
 * every `this` give every `this` hidden classes of its own, built and dropped per invocation
 * (measured: ~2 µs per prop, and old-space garbage that brought mark-compacts into a busy worker);
 * the same functions let V8 reuse one hidden class for every invocation of a component.
 */
const accessorsByComponent = new WeakMap<Component, Map<string, PropAccessors>>();

function propAccessors(component: Component, name: string): PropAccessors {
  let byName = accessorsByComponent.get(component);
  if (!byName) accessorsByComponent.set(component, (byName = new Map()));
  let accessors = byName.get(name);
  if (!accessors) {
    accessors = {
      get(this: Record<PropertyKey, unknown>) {
        return (this[PROP_VALUES] as Record<string, unknown>)[name];
      },
      set() {
        throw new TypeError(`prop "${name}" is read-only; props change only on deploy or update`);
      },
    };
    byName.set(name, accessors);
  }
  return accessors;
}

/**
 * Builds the `this` of one invocation (contract §3.1): prop values, app instances, interface and
 * service objects, bound methods and, for sources, `$emit`. Props are read-only.
 */
export function buildThis(component: Component, props: ResolvedProps, services: ThisServices): Record<string, unknown> {
  const self: Record<string, unknown> = {};
  const values: Record<string, unknown> = {};
  Object.defineProperty(self, PROP_VALUES, { value: values });
  const define = (name: string, value: unknown): void => {
    values[name] = value;
    Object.defineProperty(self, name, { enumerable: true, configurable: false, ...propAccessors(component, name) });
  };
  for (const spec of props.specs) {
    if (Object.hasOwn(props.values, spec.name)) {
      const value = props.values[spec.name];
      define(spec.name, spec.type === 'http_request' && isPlainObject(value) ? httpRequestValue(value) : value);
    } else if (Object.hasOwn(props.apps, spec.name)) {
      const app = props.apps[spec.name];
      if (app) define(spec.name, createAppInstance(app.definition, app.auth));
    } else if (props.dbProps.includes(spec.name) && services.db) define(spec.name, services.db);
    else if (props.http?.prop === spec.name && services.http) define(spec.name, services.http);
    else if (props.timer?.prop === spec.name && services.timer) define(spec.name, services.timer);
    else if (spec.type !== 'alert' && !spec.type.startsWith('$.')) define(spec.name, undefined);
  }
  for (const [name, method] of Object.entries(component.methods)) {
    self[name] = (method as AuthorFunction).bind(self);
  }
  if (services.emit) Object.defineProperty(self, '$emit', { value: services.emit, enumerable: false });
  return self;
}
