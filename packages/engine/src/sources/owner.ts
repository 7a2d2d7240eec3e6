/**
 * The one owner of everything on this server today (a single-user install). Whatever is per owner
 * takes it explicitly — the sandbox's worker group above all (decision 0007) — so that a second
 * owner needs no hunt for places that assumed one.
 */
export const OWNER_ID = 'u_local';
