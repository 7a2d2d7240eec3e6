/** Any value that survives a JSON round trip. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type ComponentType = 'source' | 'action';
export type DedupeStrategy = 'unique' | 'greatest' | 'last';
export type HookName = 'deploy' | 'activate' | 'deactivate';

/** A function the author wrote; its `this` is whatever the runtime binds. */
export type AuthorFunction = (this: unknown, ...args: unknown[]) => unknown;

/**
 * A component object as the author wrote it, before normalisation. Every field is `unknown`
 * because validation, not the type system, decides what is acceptable.
 */
export type RawComponent = Record<string, unknown>;

/** A prop after shorthand expansion and propDefinition resolution. */
export interface PropSpec {
  readonly name: string;
  readonly type: string;
  readonly label?: string;
  readonly description?: string;
  readonly optional?: boolean;
  readonly default?: unknown;
  readonly options?: unknown;
  readonly useQuery?: boolean;
  readonly secret?: boolean;
  readonly min?: number;
  readonly max?: number;
  readonly disabled?: boolean;
  readonly hidden?: boolean;
  readonly reloadProps?: boolean;
  readonly customResponse?: boolean;
  readonly alertType?: string;
  readonly content?: string;
  /** For `type: "app"`: the app object itself. */
  readonly appDefinition?: AppDefinition;
  /** The app whose propDefinitions this prop came from (its options run with that app's `this`). */
  readonly fromApp?: AppDefinition;
  /** Third element of `propDefinition`: computes extra options arguments from configured props. */
  readonly inputValues?: AuthorFunction;
  /** Everything else the author wrote on the prop, kept so nothing is silently lost. */
  readonly raw: Record<string, unknown>;
}

export interface AppDefinition {
  readonly type: 'app';
  readonly app: string;
  readonly propDefinitions: Record<string, unknown>;
  readonly methods: Record<string, AuthorFunction>;
  readonly raw: Record<string, unknown>;
}

/** A validated component, ready to invoke. */
export interface Component {
  readonly type: ComponentType;
  readonly key?: string;
  readonly name?: string;
  readonly version?: string;
  readonly description?: string;
  readonly dedupe?: DedupeStrategy;
  readonly props: readonly PropSpec[];
  readonly methods: Readonly<Record<string, AuthorFunction>>;
  readonly hooks: Readonly<Partial<Record<HookName, AuthorFunction>>>;
  readonly run: AuthorFunction;
  readonly additionalProps?: AuthorFunction;
  readonly raw: RawComponent;
}
