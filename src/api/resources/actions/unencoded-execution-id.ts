/**
 * `DELETE /resources/v3alpha/executions/request/platform...`: an execution id with a raw `/`
 * spans several path segments, so no route matches; instead of a bare 404 the client learns that
 * the id must be percent-encoded (issue #12 item 15).
 */
import { notFound } from '../../../../actors/index.js';
import { toWireError } from '../../../http/error-mapping.js';
import { json } from '../../../http/reply.js';
import type { HttpReply, HttpRequest } from '../../../http/types.js';

const EXECUTIONS = '/resources/v3alpha/executions/';

/** The 404 for an execution path with more than one segment; undefined for any other path. */
export function unencodedExecutionIdReply(req: HttpRequest): HttpReply | undefined {
  if (req.method !== 'DELETE' || !req.path.startsWith(EXECUTIONS) || !req.path.includes('/', EXECUTIONS.length)) return undefined;
  const wire = toWireError(notFound('execution.id_not_encoded', 'no such route: an execution id in the path must be percent-encoded (request%2Fplatform...)'));
  return json(wire.httpStatus, wire.body);
}
