import { AppError } from '@tributary/contracts';

/** Resolves with `work`, or rejects with TIMEOUT (`what did not finish within N ms`) at the deadline. */
export async function withTimeout<T>(work: Promise<T> | T, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.resolve(work),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new AppError('TIMEOUT', `${what} did not finish within ${timeoutMs}ms`)),
          timeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
