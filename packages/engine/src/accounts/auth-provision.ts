/** The account id of an app prop's configured value `{ "authProvisionId": "apn_…" }`, else null. */
export function authProvisionIdOf(value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const keys = Object.keys(value);
  const id = (value as Record<string, unknown>)['authProvisionId'];
  return keys.length === 1 && typeof id === 'string' && id !== '' ? id : null;
}
