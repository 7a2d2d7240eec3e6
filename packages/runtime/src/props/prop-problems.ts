import { AppError, type ErrorCode } from '@tributary/contracts';

/** One prop that failed a value rule, as listed in `details.errors` of the error that reports them all. */
export interface PropProblem {
  readonly prop: string;
  readonly code: ErrorCode;
  readonly message: string;
  readonly rule?: string;
}

const toProblem = (error: AppError): PropProblem => ({
  prop: typeof error.details.prop === 'string' ? error.details.prop : '',
  code: error.code,
  message: error.message,
  ...(error.details.rule !== undefined ? { rule: error.details.rule } : {}),
});

/**
 * One error for every prop that failed, so a form can flag them all at once (issue 15 item 6). It
 * keeps the first failure's code, `prop` and `rule` (what older clients read) and lists each
 * failure in `details.errors`; one failure is thrown as it is.
 */
export function propProblemsError(errors: readonly AppError[]): AppError {
  const [first] = errors;
  if (!first) throw new Error('propProblemsError needs at least one error');
  if (errors.length === 1) return first;
  const problems = errors.map(toProblem);
  const message = `${errors.length} props are not valid: ${problems.map((problem) => problem.message).join('; ')}`;
  return new AppError(first.code, message, { ...first.details, errors: problems });
}

/** The failures an error reports: its `details.errors`, or the error itself when it names one prop. */
export function propProblemsOf(error: AppError): PropProblem[] {
  const listed = error.details['errors'];
  if (Array.isArray(listed))
    return listed.filter(
      (entry): entry is PropProblem =>
        typeof entry === 'object' && entry !== null && typeof (entry as PropProblem).prop === 'string',
    );
  return typeof error.details.prop === 'string' ? [toProblem(error)] : [];
}
