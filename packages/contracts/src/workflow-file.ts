/** What a workflow file needs of a saved workflow: its current name, whether it is on, and its last version's spec. */
interface SavedWorkflow<Spec extends { readonly name: string; readonly active?: boolean | undefined }> {
  readonly name: string;
  readonly active: boolean;
  readonly spec: Spec;
}

/**
 * A saved workflow as the workflow file `tributary workflow deploy` reads back as the same workflow
 * (docs/workflows.md): the current name, `active: false` only when it is off (a file without it
 * deploys active), then the version's settings, trigger and steps. Shared by `workflow export` and
 * the web app's download, so both write the same file.
 */
export function workflowFileOf<Spec extends { readonly name: string; readonly active?: boolean | undefined }>(
  workflow: SavedWorkflow<Spec>,
): Omit<Spec, 'name' | 'active'> & { readonly name: string; readonly active?: false } {
  const { name: _versionName, active: _active, ...spec } = workflow.spec;
  return { name: workflow.name, ...(workflow.active ? {} : { active: false as const }), ...spec };
}
