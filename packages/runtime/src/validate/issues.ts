export type IssueLevel = 'error' | 'warning';

/** One finding of validation, tied to a rule id of the contract (C1–C17, P1–P14). */
export interface ValidationIssue {
  readonly level: IssueLevel;
  readonly rule: string;
  readonly message: string;
  readonly prop?: string;
  readonly field?: string;
}

/** What the component is being checked for: rules C4–C6 are stricter for deploy and publish. */
export type ValidationPurpose = 'run' | 'deploy' | 'publish';

export class IssueList {
  readonly items: ValidationIssue[] = [];

  error(rule: string, message: string, where: { prop?: string; field?: string } = {}): void {
    this.items.push({ level: 'error', rule, message, ...where });
  }

  warn(rule: string, message: string, where: { prop?: string; field?: string } = {}): void {
    this.items.push({ level: 'warning', rule, message, ...where });
  }

  get hasErrors(): boolean {
    return this.items.some((issue) => issue.level === 'error');
  }
}
