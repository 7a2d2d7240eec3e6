import { errorMessage } from '@tributary/contracts';
import { gzipSync } from 'node:zlib';
import { PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { AttemptOutcome, DeliveryJob } from '../delivery-types.js';

/** The operator's S3-compatible endpoint (TRIBUTARY_S3_*). */
export interface S3Settings {
  readonly endpoint: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** `bucket` in the path instead of the host name: MinIO, s3rver and most self-hosted servers need it. */
  readonly forcePathStyle: boolean;
}

/**
 * The object key of one `$.send.s3`, fixed when the delivery is queued so a retry overwrites the
 * same object: upstream's layout, `<prefix>YYYY/MM/DD/HH/YYYY-MM-DD-HH-MM-SS-<id>.gz`.
 */
export function s3ObjectKey(prefix: string, at: number, id: string): string {
  const iso = new Date(at).toISOString();
  const [date = '', time = ''] = iso.split('T');
  const [y, m, d] = date.split('-');
  const [hh, mm, ss] = time.slice(0, 8).split(':');
  return `${prefix}${y}/${m}/${d}/${hh}/${y}-${m}-${d}-${hh}-${mm}-${ss}-${id}.gz`;
}

const PERMANENT = new Set([
  'NoSuchBucket',
  'AccessDenied',
  'InvalidBucketName',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
]);

/** Writes the payload as one gzip newline-delimited JSON object, as upstream's batches are. */
export function s3Deliverer(settings: S3Settings): (job: DeliveryJob) => Promise<AttemptOutcome> {
  const client = new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    // Our own attempts and backoff are the retry policy; the SDK's would hide them from the log.
    maxAttempts: 1,
  });
  return async (job) => {
    const config = job.config;
    const bucket = String(config['bucket']);
    const key = String(config['key']);
    try {
      const result = await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: gzipSync(`${JSON.stringify(config['payload'])}\n`),
          ContentType: 'application/x-ndjson',
          ContentEncoding: 'gzip',
        }),
      );
      return { ok: true, detail: `s3://${bucket}/${key} ETag ${result.ETag ?? '?'}` };
    } catch (error) {
      if (error instanceof S3ServiceException) {
        return {
          ok: false,
          detail: `${error.name}: ${error.message} (bucket "${bucket}")`,
          retry: !PERMANENT.has(error.name) && (error.$metadata.httpStatusCode ?? 500) >= 500,
        };
      }
      const message = errorMessage(error);
      return { ok: false, detail: message, retry: true };
    }
  };
}
