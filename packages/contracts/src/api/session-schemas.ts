import { z } from 'zod';

/** Sign a browser in: the API key is traded for an HttpOnly session cookie. */
export const CreateSessionBody = z.strictObject({
  api_key: z.string().min(1).max(200).describe('an API key of this server'),
});

/** A browser session: which API key it stands for and when it ends (epoch seconds). */
export const BrowserSessionInfo = z.object({
  api_key: z.object({ id: z.string(), name: z.string(), prefix: z.string() }),
  expires_at: z.number().int(),
});
