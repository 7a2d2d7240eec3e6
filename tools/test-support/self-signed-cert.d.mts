/** A throwaway self-signed certificate (CN=localhost, one day) as PEM buffers. */
export function selfSignedCert(): { readonly key: Buffer; readonly cert: Buffer };
