/**
 * The one error hierarchy of Tessera. Domain code throws these; the edges map them once
 * (src/http/error-mapping.ts) to HTTP status, gRPC code and the rpcStatus body.
 * `message` is safe to show to clients and never echoes user input; `detail` is for logs.
 */
/** Base of every error Tessera reports to a caller. */
export class AppError extends Error {
    kind;
    /** Stable, dotted, lower snake case code such as `target.not_found`. */
    code;
    detail;
    violations;
    constructor(kind, code, message, options = {}) {
        super(message, options.cause === undefined ? undefined : { cause: options.cause });
        this.name = 'AppError';
        this.kind = kind;
        this.code = code;
        this.detail = options.detail;
        this.violations = options.violations ?? [];
    }
}
export function invalidArgument(code, message, options) {
    return new AppError('invalid_argument', code, message, options);
}
export function failedPrecondition(code, message, options) {
    return new AppError('failed_precondition', code, message, options);
}
export function notFound(code, message, options) {
    return new AppError('not_found', code, message, options);
}
export function alreadyExists(code, message, options) {
    return new AppError('already_exists', code, message, options);
}
export function permissionDenied(code, message, options) {
    return new AppError('permission_denied', code, message, options);
}
export function unauthenticated(code, message, options) {
    return new AppError('unauthenticated', code, message, options);
}
export function aborted(code, message, options) {
    return new AppError('aborted', code, message, options);
}
export function resourceExhausted(code, message, options) {
    return new AppError('resource_exhausted', code, message, options);
}
export function unimplemented(code, message, options) {
    return new AppError('unimplemented', code, message, options);
}
export function internalError(code, message, options) {
    return new AppError('internal', code, message, options);
}
/** A validation failure listing every offending field. */
export function validationFailed(violations, code = 'request.invalid') {
    const fields = violations.map((v) => v.field || '(body)').join(', ');
    return new AppError('invalid_argument', code, `invalid request: ${describeViolations(violations)}`, {
        violations,
        detail: fields,
    });
}
function describeViolations(violations) {
    return violations
        .slice(0, 5)
        .map((v) => (v.field ? `${v.field}: ${v.description}` : v.description))
        .join('; ');
}
/** An error of an OAuth / OIDC protocol endpoint. */
export class OAuthError extends AppError {
    oauthCode;
    /** False whenever the redirect URI or client is in doubt: then never redirect. */
    redirectable;
    constructor(oauthCode, message, options = {}) {
        super(options.kind ?? kindOfOAuthCode(oauthCode), `oauth.${oauthCode}`, message, options);
        this.name = 'OAuthError';
        this.oauthCode = oauthCode;
        this.redirectable = options.redirectable ?? true;
    }
}
function kindOfOAuthCode(code) {
    switch (code) {
        case 'invalid_client':
        case 'invalid_token':
            return 'unauthenticated';
        case 'access_denied':
        case 'insufficient_scope':
            return 'permission_denied';
        case 'server_error':
            return 'internal';
        case 'temporarily_unavailable':
            return 'unavailable';
        default:
            return 'invalid_argument';
    }
}
/** Misuse of Tessera's own APIs: always `internal`, never turned into a 4xx. */
export class ProgrammerError extends Error {
    constructor(message) {
        super(message);
        this.name = 'ProgrammerError';
    }
}
export function isAppError(error) {
    return error instanceof AppError;
}
