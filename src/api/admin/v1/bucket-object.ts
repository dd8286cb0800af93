/**
 * The export document in object storage, through the official `@google-cloud/storage` client:
 * upload a finished spool file to `gs://bucket/path` (one streamed multipart request), or read
 * an object back under a size limit. `TESSERA_GCS_ENDPOINT` replaces Google's endpoint (an
 * emulator, a private gateway); authentication is always on, with the request's service account.
 * The provider's errors become clear 4xx / 503 answers carrying its message, never a 500.
 */
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { File, StorageOptions } from '@google-cloud/storage';
import { AppError, failedPrecondition, notFound, validationFailed } from '../../../../actors/index.js';
import { lazyModule } from '../../../runtime/lazy-module.js';
import { ServiceAccountAuth, type ServiceAccount } from './bucket-auth.js';

export interface BucketLocation {
  readonly bucket: string;
  readonly path: string;
  readonly account: ServiceAccount;
}

/**
 * The storage client is loaded on first use: it and its Google dependencies cost ~30 MB of
 * resident memory, which a node that never exports to a bucket should not carry (#13).
 */
const storageModule = lazyModule(() => import('@google-cloud/storage'));

async function objectOf(location: BucketLocation, endpoint: string | undefined): Promise<File> {
  const { Storage } = await storageModule();
  const options: StorageOptions = {
    // The storage client accepts any object with getRequestHeaders(); see bucket-auth.ts for why.
    authClient: new ServiceAccountAuth(location.account) as unknown as StorageOptions['authClient'],
    useAuthWithCustomEndpoint: true,
    // A failing storage should fail the call within about a minute, not the client's ten.
    retryOptions: { maxRetries: 2, maxRetryDelay: 8, totalTimeout: 60 },
    ...(location.account.projectId === undefined ? {} : { projectId: location.account.projectId }),
    ...(endpoint === undefined ? {} : { apiEndpoint: endpoint }),
  };
  return new Storage(options).bucket(location.bucket).file(location.path);
}

/** Streams the file at `source` into the object (replacing it); returns nothing until it is stored. */
export async function uploadObject(location: BucketLocation, endpoint: string | undefined, source: string, signal: AbortSignal): Promise<void> {
  const target = (await objectOf(location, endpoint)).createWriteStream({ resumable: false, contentType: 'application/json', validation: 'md5' });
  try {
    await pipeline(createReadStream(source), target, { signal });
  } catch (error) {
    throw bucketError(error, location);
  }
}

/** Reads the whole object (the import parses it as one document); larger than `maxBytes` → 400. */
export async function readObject(location: BucketLocation, endpoint: string | undefined, maxBytes: number, field: string, signal: AbortSignal): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    const stream = (await objectOf(location, endpoint)).createReadStream();
    signal.addEventListener('abort', () => stream.destroy(new AppError('cancelled', 'request.cancelled', 'the client went away')), { once: true });
    for await (const chunk of stream) {
      size += (chunk as Buffer).byteLength;
      if (size > maxBytes) {
        stream.destroy();
        throw validationFailed([{ field, description: `the object is larger than TESSERA_IMPORT_MAX_BODY_BYTES (${maxBytes} bytes)` }], 'import.document_too_large');
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    throw bucketError(error, location);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/** The provider's status → ours: 404 stays 404, refusals are 400 (the request's account), the rest 503. */
function bucketError(error: unknown, location: BucketLocation): AppError {
  if (error instanceof AppError) return error;
  const status = typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : undefined;
  const message = error instanceof Error ? error.message : String(error);
  const where = `gs://${location.bucket}/${location.path}`;
  if (status === 404) return notFound('bucket.not_found', `object storage: ${where}: ${message}`);
  if (status === 401 || status === 403) return failedPrecondition('bucket.access_denied', `object storage refused ${location.account.clientEmail} on ${where}: ${message}`);
  if (status !== undefined && status >= 400 && status < 500) return failedPrecondition('bucket.rejected', `object storage rejected the request on ${where}: ${message}`);
  if ((error as { name?: unknown }).name === 'AbortError') return new AppError('cancelled', 'request.cancelled', 'the client went away');
  return new AppError('unavailable', 'bucket.unavailable', `object storage failed on ${where}: ${message}`);
}
