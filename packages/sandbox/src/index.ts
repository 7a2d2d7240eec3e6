/**
 * @module @tributary/sandbox
 * Runs components in sandboxed worker processes (warm workers shared by the components of one
 * owner, or one per component; an empty environment, Node's permission model, bubblewrap
 * namespaces, an unprivileged uid, memory and time limits) and installs the npm packages they
 * import into a content-addressed cache.
 */
export { Sandbox } from './host/sandbox.js';
export type { Placement, PreparedComponent, SandboxOptions } from './host/sandbox.js';
export type { ExitReason } from './host/worker-process.js';
export { ComponentHandle } from './host/component-handle.js';
export type {
  BatchRequest,
  CallResult,
  InvokeCallbacks,
  InvokeRequest,
  LoadedComponent,
  OptionsRequest,
} from './host/component-handle.js';
export { detectIsolation } from './host/isolation.js';
export type { IsolationLayer, IsolationOptions, IsolationReport } from './host/isolation.js';
export { planDependencies } from './packages/dependency-plan.js';
export type { Dependency } from './packages/dependency-plan.js';
export { PackageInstaller } from './packages/package-installer.js';
export type { InstallProgress, InstalledPackages, PackageLock } from './packages/package-installer.js';
export { MAX_BATCH_ITEMS, PROTOCOL_VERSION } from './protocol/messages.js';
export { EventPacking, packEvent, unpackEvent } from './protocol/event-packing.js';
export { ANY_EXPRESSION, WHOLE_EXPRESSION } from './protocol/expression-patterns.js';
export type { PackedEvent } from './protocol/event-packing.js';
export type { ComponentInfo, ExpressionsOutcome, PropsInfo } from './protocol/messages.js';
export { addressChecker, DEFAULT_EGRESS, egressFromEnv, isPrivateAddress } from './egress/address-policy.js';
export type { EgressPolicy } from './egress/address-policy.js';
