import { AppError } from '@tributary/contracts';
import type { DeadLetter, DeadLetterList, DeadLetterQuery } from '../ports/dead-letter-list.js';

export interface DeadLetterServiceOptions {
  readonly list: DeadLetterList;
  /** A dead letter went back to the queue of this source: wake the runner. */
  readonly onRequeued: (sourceId: string) => void;
}

/** Dead letters as the API, CLI and UI see them: listed, shown, retried, deleted. */
export class DeadLetterService {
  constructor(private readonly options: DeadLetterServiceOptions) {}

  list(query: DeadLetterQuery): Promise<{ readonly data: DeadLetter[]; readonly total: number }> {
    return this.options.list.list(query);
  }

  async get(id: string): Promise<DeadLetter> {
    const letter = await this.options.list.get(id);
    if (!letter) throw notFound(id);
    return letter;
  }

  /** Queues it again (attempts from zero); resolves with the dead letter as it was. */
  async retry(id: string): Promise<DeadLetter> {
    const letter = await this.get(id);
    if (!(await this.options.list.retry(id))) throw notFound(id);
    this.options.onRequeued(letter.sourceId);
    return letter;
  }

  async delete(id: string): Promise<void> {
    if (!(await this.options.list.delete(id))) throw notFound(id);
  }
}

function notFound(id: string): AppError {
  return new AppError('NOT_FOUND', `id: no dead letter "${id}"`, { field: 'id' });
}
