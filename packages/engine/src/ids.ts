import { customAlphabet } from 'nanoid';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const shortToken = customAlphabet(ALPHABET, 10);
const longToken = customAlphabet(ALPHABET, 24);

/** Ids of the API: a prefix naming the kind (`sc_`, `dc_`, `inv_`…) and a random token. */
export function newId(prefix: 'sc' | 'dc' | 'inv' | 'key' | 'apn' | 'wf' | 'wfr' | 'imp' | 'ses'): string {
  return `${prefix}_${shortToken()}`;
}

/** An unguessable token: HTTP endpoint ids (public URLs) and API keys. */
export function newSecretToken(): string {
  return longToken();
}
