/**
 * What conditions may name (reference facts §3.5): every service and every method this node
 * serves, computed once from the registered services, and the function hooks Tessera calls.
 */
import type { DescService } from '@bufbuild/protobuf';

/** Function hooks (reference facts §3.4). `presamlresponse` is not listed: Tessera has no SAML. */
export const EXECUTION_FUNCTIONS = ['preaccesstoken', 'preuserinfo'] as const;

export type ExecutionFunction = (typeof EXECUTION_FUNCTIONS)[number];

export interface ExecutionCatalog {
  /** Sorted `<package>.<Service>` names. */
  readonly services: readonly string[];
  /** Sorted full method names `/<package>.<Service>/<Method>`. */
  readonly methods: readonly string[];
  readonly functions: readonly string[];
}

export function createExecutionCatalog(services: readonly DescService[]): ExecutionCatalog {
  const names = services.map((s) => s.typeName);
  const methods = services.flatMap((s) => s.methods.map((m) => fullMethodName(s.typeName, m.name)));
  return {
    services: [...new Set(names)].sort(),
    methods: [...new Set(methods)].sort(),
    functions: [...EXECUTION_FUNCTIONS].sort(),
  };
}

export function fullMethodName(service: string, method: string): string {
  return `/${service}/${method}`;
}
