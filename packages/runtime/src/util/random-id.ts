import { randomBytes } from 'node:crypto';

const ID_BYTES = 9;
/** Ids drawn per call of the generator: each call costs a few microseconds whatever its size. */
const IDS_PER_DRAW = 256;

let pool = Buffer.alloc(0);
let offset = 0;

/** 9 random bytes as base64url (12 characters), from a pool refilled by the CSPRNG every 256 ids. */
export function randomId(): string {
  if (offset + ID_BYTES > pool.length) {
    pool = randomBytes(ID_BYTES * IDS_PER_DRAW);
    offset = 0;
  }
  const id = pool.toString('base64url', offset, offset + ID_BYTES);
  offset += ID_BYTES;
  return id;
}
