import type { SealedAt } from './secret-box.js';

/**
 * Every place a secret is stored sealed, as the SealedAt its values are bound to. Call sites and
 * the re-sealing of a rotation (reseal-all.ts) use these, so the two cannot disagree.
 */
export const sealedAt = {
  account: (id: string): SealedAt => ({ table: 'accounts', row: id, column: 'fields_sealed' }),
  oauthClient: (app: string): SealedAt => ({ table: 'oauth_clients', row: app, column: 'client_secret_sealed' }),
  oauthVerifier: (state: string): SealedAt => ({ table: 'oauth_attempts', row: state, column: 'verifier_sealed' }),
  deliveryConfig: (id: string): SealedAt => ({ table: 'deliveries', row: id, column: 'config_sealed' }),
  subscriptionSecret: (id: string): SealedAt => ({ table: 'subscriptions', row: id, column: 'secret_sealed' }),
  sourceProp: (sourceId: string, prop: string): SealedAt => ({
    table: 'sources',
    row: sourceId,
    column: `configured_props.${prop}`,
  }),
  /**
   * A workflow step's secret prop, bound to the workflow rather than one version: a new version
   * keeps the previous version's value for a secret sent back redacted.
   */
  workflowStepProp: (workflowId: string, step: string, prop: string): SealedAt => ({
    table: 'workflow_versions',
    row: workflowId,
    column: `plan.${step}.${prop}`,
  }),
  instanceSecret: (name: string): SealedAt => ({ table: 'instance_secrets', row: name, column: 'value_sealed' }),
};
