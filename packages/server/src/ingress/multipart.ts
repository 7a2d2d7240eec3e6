/**
 * `multipart/form-data` bodies of HTTP endpoints (contract §3.5): v1 gives the source an object
 * with one key per text field (repeated fields as arrays, like query values) and refuses file parts.
 */
export type MultipartBody =
  | { readonly kind: 'fields'; readonly fields: Record<string, string | string[]> }
  | { readonly kind: 'file' }
  | { readonly kind: 'unparsed' };

export async function parseMultipart(body: Buffer, contentType: string): Promise<MultipartBody> {
  let form: FormData;
  try {
    form = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
  } catch {
    // Malformed: the source gets the raw text, unless it plainly carries a file part.
    return /content-disposition:[^\r\n]*filename=/i.test(body.toString('latin1'))
      ? { kind: 'file' }
      : { kind: 'unparsed' };
  }
  const fields: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of form) {
    if (typeof value !== 'string') return { kind: 'file' };
    const previous = fields[name];
    fields[name] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return { kind: 'fields', fields: { ...fields } };
}
