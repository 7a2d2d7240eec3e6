import { workflowFileOf } from '@tributary/contracts/workflow-file';
import type { WorkflowT } from '../api/endpoints.js';

/** `Signup flow` → `signup-flow.workflow.json`: a file name any shell takes without quotes. */
export function workflowFileName(name: string): string {
  const base = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${base || 'workflow'}.workflow.json`;
}

/** The workflow file `tributary workflow deploy` reads back as this workflow, as JSON text. */
export function workflowFileText(workflow: WorkflowT): string {
  return `${JSON.stringify(workflowFileOf(workflow), null, 2)}\n`;
}

/** Saves the workflow's file through the browser's download. */
export function downloadWorkflowFile(workflow: WorkflowT): void {
  const url = URL.createObjectURL(new Blob([workflowFileText(workflow)], { type: 'application/json' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = workflowFileName(workflow.name);
  link.click();
  // The download has its own copy once started; the URL would otherwise live as long as the page.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
