/**
 * The admin handlers, loaded on the first admin request (admin-routes.ts, #13).
 *
 * `POST /admin/v1/export` and `POST /admin/v1/import` (seed 001, docs/api/export-import.md):
 * plain JSON endpoints of an instance (Host → instance, 404 / 429 as for every API), for a
 * caller holding IAM_OWNER on that instance (bearer PAT or access token; 401 / 403).
 *
 * The export is spooled to a file under `<dataDir>/tmp` (0600, it may hold password hashes)
 * while it is built, then streamed: memory stays bounded for any size, and a deadline that
 * passes while building answers 504 instead of a truncated 200. The file is removed once sent
 * (or once uploaded, for `gcs_output`). An import reads its document from the body or from an
 * object (`data_orgsv1_gcs`); both are parsed whole, under TESSERA_IMPORT_MAX_BODY_BYTES.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import {
  AppError,
  INSTANCE_OWNER_ROLE,
  membershipId,
  membershipKind,
  notFound,
  orgKind,
  permissionDenied,
  validationFailed,
  type ActorSystem,
} from '../../../../actors/index.js';
import { json } from '../../../http/reply.js';
import type { HttpReply, HttpRequest } from '../../../http/types.js';
import { toWireError } from '../../../http/error-mapping.js';
import { authenticate, isMembershipLive, type Caller } from '../../../query/auth.js';
import { assertInstanceUsable, type InstanceInfo } from '../../../query/tenant.js';
import { parseDocument, parseExportRequest, parseImportRequest, parseJsonBody, type ExportRequest } from './admin-requests.js';
import { readObject, uploadObject } from './bucket-object.js';
import { exportDocument } from './export-document.js';
import { ImportRun, runImport } from './import-run.js';
import type { AdminRouteDeps } from './admin-routes.js';

const DEFAULT_IMPORT_MAX_BYTES = 128 * 1024 * 1024;

const SPOOL_FLUSH_BYTES = 64 * 1024;

/** `POST /admin/v1/export`. */
export const handleExport = (deps: AdminRouteDeps, req: HttpRequest): Promise<HttpReply> => answer(deps, req, () => exportOrgs(deps, req));

/** `POST /admin/v1/import`. */
export const handleImport = (deps: AdminRouteDeps, req: HttpRequest): Promise<HttpReply> => answer(deps, req, () => importOrgs(deps, req));

async function answer(deps: AdminRouteDeps, req: HttpRequest, run: () => Promise<HttpReply>): Promise<HttpReply> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof AppError)) deps.logger.error({ err: error, path: req.path }, 'admin request failed');
    const wire = toWireError(error);
    return json(wire.httpStatus, wire.body, wire.headers);
  }
}

/** Instance from the Host, usable, caller authenticated and holding IAM_OWNER there. */
async function authorize(deps: AdminRouteDeps, req: HttpRequest): Promise<{ instance: InstanceInfo; caller: Caller }> {
  const instance = await deps.tenants.resolveHost(req.headers['host'] ?? '');
  if (instance === undefined) throw notFound('instance.not_found', 'no instance is configured for this host');
  assertInstanceUsable(instance);
  const caller = await authenticate(deps.actors, instance.id, req.headers['authorization'], deps.clock.now(), deps.accessTokens);
  const membership = await deps.actors.readRecord(instance.id, membershipKind, membershipId('instance', instance.id, caller.userId));
  const owner = membership !== undefined && membership.state.roles.includes(INSTANCE_OWNER_ROLE) && (await isMembershipLive(deps.actors, instance.id, membership));
  if (!owner) throw permissionDenied('auth.permission_denied', `export and import need the ${INSTANCE_OWNER_ROLE} role on this instance`);
  return { instance, caller };
}

async function exportOrgs(deps: AdminRouteDeps, req: HttpRequest): Promise<HttpReply> {
  const { instance } = await authorize(deps, req);
  const request = parseExportRequest(parseJsonBody(req.body), deps.gcsEndpoint);
  const deadline = deps.clock.now() + request.timeoutMs;
  const orgIds = await selectOrgs(deps.actors, instance.id, request);
  const checkpoint = () => {
    if (req.signal.aborted) throw new AppError('cancelled', 'request.cancelled', 'the client went away');
    if (deps.clock.now() > deadline) throw new AppError('deadline_exceeded', 'export.deadline_exceeded', 'the export did not complete within the timeout');
  };
  const counts: Record<string, number> = {};
  const chunks = exportDocument(deps.actors, { instanceId: instance.id, orgIds, withPasswords: request.withPasswords, withOtp: request.withOtp, checkpoint, counts });
  const { path: file, bytes } = await spool(join(deps.dataDir, 'tmp'), chunks);
  if (request.bucket !== undefined) {
    try {
      await uploadObject(request.bucket, deps.gcsEndpoint, file, req.signal);
    } finally {
      await unlink(file).catch(() => undefined);
    }
    return json(200, { bucket: request.bucket.bucket, path: request.bucket.path, bytes, counts });
  }
  return { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' }, body: streamAndRemove(file) };
}

/** The organizations to export, in id order: `orgIds` (all when empty) minus `excludedOrgIds`. */
async function selectOrgs(actors: ActorSystem, instanceId: string, request: ExportRequest): Promise<string[]> {
  const excluded = new Set(request.excludedOrgIds);
  if (request.orgIds.length === 0) {
    const all: string[] = [];
    for await (const org of actors.scanRecords(instanceId, orgKind)) if (!excluded.has(org.id)) all.push(org.id);
    return all;
  }
  const violations: { field: string; description: string }[] = [];
  for (const [i, id] of request.orgIds.entries()) {
    if ((await actors.readRecord(instanceId, orgKind, id)) === undefined) violations.push({ field: `orgIds[${i}]`, description: 'no such organization' });
  }
  if (violations.length > 0) throw validationFailed(violations, 'export.org_not_found');
  return [...new Set(request.orgIds)].filter((id) => !excluded.has(id));
}

/** Writes the chunks to a new private file; removes it and rethrows when building fails. */
async function spool(dir: string, chunks: AsyncIterable<string>): Promise<{ path: string; bytes: number }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `export-${randomUUID()}.json`);
  const handle = await open(path, 'wx', 0o600);
  try {
    let pending: string[] = [];
    let size = 0;
    let bytes = 0;
    for await (const chunk of chunks) {
      pending.push(chunk);
      size += chunk.length;
      if (size >= SPOOL_FLUSH_BYTES) {
        bytes += (await handle.write(pending.join(''))).bytesWritten;
        pending = [];
        size = 0;
      }
    }
    bytes += (await handle.write(pending.join(''))).bytesWritten;
    await handle.close();
    return { path, bytes };
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw error;
  }
}

async function* streamAndRemove(path: string): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: SPOOL_FLUSH_BYTES })) yield chunk as Buffer;
  } finally {
    await unlink(path).catch(() => undefined);
  }
}

async function importOrgs(deps: AdminRouteDeps, req: HttpRequest): Promise<HttpReply> {
  const { instance, caller } = await authorize(deps, req);
  const request = parseImportRequest(parseJsonBody(req.body), deps.gcsEndpoint);
  const orgs =
    'orgs' in request.source
      ? request.source.orgs
      : parseDocument(await readObject(request.source.bucket, deps.gcsEndpoint, deps.importMaxBytes ?? DEFAULT_IMPORT_MAX_BYTES, 'dataOrgsv1Gcs', req.signal), 'dataOrgsv1Gcs');
  const run = new ImportRun(
    { actors: deps.actors, instanceId: instance.id, instanceDomain: instance.primaryDomain, creator: caller.userId, logger: deps.logger, now: () => deps.clock.now() },
    request.timeoutMs,
  );
  try {
    return json(200, await runImport(run, orgs));
  } catch (error) {
    if (!(error instanceof AppError) || error.kind !== 'deadline_exceeded') throw error;
    const wire = toWireError(error);
    // The reference returns the partial result with the error: both, in one body.
    return json(wire.httpStatus, { ...wire.body, ...run.result }, wire.headers);
  }
}
