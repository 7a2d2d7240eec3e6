import type { WorkflowSpecT } from '../api/endpoints.js';

/** A trigger in a few words, for lists and headers. */
export function describeTrigger(trigger: WorkflowSpecT['trigger']): string {
  switch (trigger.type) {
    case 'http':
      return trigger.custom_response ? 'HTTP (custom response)' : 'HTTP';
    case 'timer':
      return 'cron' in trigger
        ? `Cron ${trigger.cron}${trigger.timezone ? ` (${trigger.timezone})` : ''}`
        : `Every ${trigger.interval_seconds} s`;
    case 'source':
      return `Events of ${trigger.source_id}`;
    case 'emit':
      return `Emits of ${trigger.workflow_id}`;
    case 'manual':
      return 'Run now';
  }
}
