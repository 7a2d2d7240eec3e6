/** The in-process implementations of the engine's ports run the shared contract suites. */
import { MemoryPubSub, MemoryRateLimiter } from '../src/index.js';
import { pubSubContract } from './contracts/pubsub.contract.js';
import { rateLimiterContract } from './contracts/rate-limiter.contract.js';

pubSubContract('MemoryPubSub', () => {
  // One process: the publishing and the listening side are the same object.
  const pubsub = new MemoryPubSub();
  return { a: pubsub, b: pubsub };
});

rateLimiterContract('MemoryRateLimiter', ({ limit, now }) => new MemoryRateLimiter({ limit, now }));
