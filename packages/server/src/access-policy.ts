import { ConfigError } from "@jobtasks/core";

/**
 * The scopes a caller holds. Undefined means every scope: stdio (the host that spawned the process is the
 * user), a server without authentication, and a static token given no list of scopes.
 */
export type GrantedScopes = ReadonlySet<string> | undefined;

/** Who is calling, as authentication found them: the principal tasks bind to, and its scopes. */
export interface AuthenticatedCaller {
  principal: string;
  scopes: GrantedScopes;
}

export interface AccessPolicyOptions {
  /** Scopes a tool needs when `toolScopes` names none for it. Default: none. */
  defaultToolScopes?: readonly string[];
  /** Per tool name: the scopes its caller must hold (all of them), instead of the default. */
  toolScopes?: Readonly<Record<string, readonly string[]>>;
  /** The scope needed to answer a question an adapter marks as an approval. Default: none needed. */
  approvalScope?: string;
  /** Per adapter instance: the approval scope of its jobs, instead of `approvalScope`. */
  adapterApprovalScopes?: Readonly<Record<string, string>>;
}

/**
 * Which scopes a tool and an approval need. The tool's scopes also guard its tasks (tasks/get,
 * tasks/update, tasks/cancel and the handle tools), looked up by the tool name the task id holds, so a
 * changed config applies to tasks already running.
 */
export class AccessPolicy {
  readonly #defaultToolScopes: readonly string[];
  readonly #toolScopes: Readonly<Record<string, readonly string[]>>;
  readonly #approvalScope: string | undefined;
  readonly #adapterApprovalScopes: Readonly<Record<string, string>>;

  constructor(options: AccessPolicyOptions = {}) {
    this.#defaultToolScopes = options.defaultToolScopes ?? [];
    this.#toolScopes = options.toolScopes ?? {};
    this.#approvalScope = options.approvalScope;
    this.#adapterApprovalScopes = options.adapterApprovalScopes ?? {};
  }

  /** Refuse names of tools or adapter instances the server does not have: a typo would silently grant access. */
  check(toolNames: readonly string[], instanceNames: readonly string[], source = "server.auth"): void {
    for (const tool of Object.keys(this.#toolScopes)) {
      if (!toolNames.includes(tool))
        throw new ConfigError(`${source}.toolScopes.${tool}`, `no adapter offers a tool named "${tool}"`);
    }
    for (const instance of Object.keys(this.#adapterApprovalScopes)) {
      if (!instanceNames.includes(instance))
        throw new ConfigError(
          `${source}.adapterApprovalScopes.${instance}`,
          `no adapter instance is named "${instance}"`,
        );
    }
  }

  toolScopes(toolName: string): readonly string[] {
    return Object.hasOwn(this.#toolScopes, toolName) ? this.#toolScopes[toolName]! : this.#defaultToolScopes;
  }

  approvalScope(instance: string): string | undefined {
    return Object.hasOwn(this.#adapterApprovalScopes, instance)
      ? this.#adapterApprovalScopes[instance]
      : this.#approvalScope;
  }

  /**
   * The scopes the tools need, without the approval scopes: what a 401 names for a host to ask for when
   * no requiredScopes are set. A host asks for every scope_supported otherwise, and a person's token would
   * let the agent in that host answer approvals.
   */
  get toolScopesNamed(): string[] {
    const named = new Set<string>(this.#defaultToolScopes);
    for (const scopes of Object.values(this.#toolScopes)) for (const scope of scopes) named.add(scope);
    return [...named];
  }

  /** Every scope the policy names, for the protected resource metadata's scopes_supported. */
  get scopesNamed(): string[] {
    const named = new Set<string>(this.#defaultToolScopes);
    for (const scopes of Object.values(this.#toolScopes)) for (const scope of scopes) named.add(scope);
    if (this.#approvalScope !== undefined) named.add(this.#approvalScope);
    for (const scope of Object.values(this.#adapterApprovalScopes)) named.add(scope);
    return [...named];
  }
}

/** The scopes among `needed` the caller does not hold (none when it holds every scope). */
export function missingScopes(needed: readonly string[], granted: GrantedScopes): string[] {
  if (granted === undefined) return [];
  return needed.filter((scope) => !granted.has(scope));
}
