import { randomBytes } from "node:crypto";
import { ConfigError } from "@jobtasks/core";
import {
  AccessPolicy,
  BearerTokens,
  TaskIdSealer,
  TaskService,
  Telemetry,
  isLoopbackHost,
  type HttpServerOptions,
  type Logger,
  type ProcessHistograms,
  type SharedState,
} from "@jobtasks/server";
import type { LoadedConfig } from "./load-config.js";
import { checkRotatable, readKeptSecret, readPreviousSecrets, secretFilePath } from "./secret.js";
import { readRedisSettings, type RedisSettings } from "./redis-settings.js";

const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** What the environment and the command line add to a config file, all checked before anything starts. */
export interface ServerSettings {
  logLevel: string;
  tokens: BearerTokens | undefined;
  /** What startHttpServer takes for authentication: static tokens (and their scopes) or OAuth. */
  http: Pick<HttpServerOptions, "tokens" | "tokenScopes" | "oauth">;
  host: string;
  port: number;
  /** Where replicas share state; undefined: nowhere, each process keeps its own. */
  redis: RedisSettings | undefined;
}

export function readServerSettings(
  config: LoadedConfig,
  environment: Readonly<Record<string, string | undefined>>,
  overrides: {
    port?: number | undefined;
    host?: string | undefined;
    stdio?: boolean | undefined;
    logLevel?: string | undefined;
  } = {},
): ServerSettings {
  // A stdio host reads the server's stderr, and some (Claude Code) file every line there as an error:
  // start-up news stays out of it unless a level is asked for.
  const logLevel =
    overrides.logLevel ||
    environment["JOBTASKS_LOG_LEVEL"] ||
    config.server.logLevel ||
    (overrides.stdio ? "warn" : "info");
  if (!logLevels.includes(logLevel)) {
    throw new ConfigError(
      overrides.logLevel ? "--log-level" : "JOBTASKS_LOG_LEVEL",
      `expected one of ${logLevels.join(", ")}, got "${logLevel}"`,
    );
  }
  const tokensValue = environment["JOBTASKS_AUTH_TOKENS"];
  const tokens = tokensValue ? BearerTokens.parse(tokensValue) : undefined;
  return {
    logLevel,
    tokens,
    http: httpAuthentication(config.server.auth, tokens),
    // Empty counts as unset, as for every other variable: an empty HOST must not mean "every interface".
    host: overrides.host ?? (environment["HOST"] || "127.0.0.1"),
    port: overrides.port ?? (environment["PORT"] ? parsePort("PORT", environment["PORT"]) : 3000),
    redis: readRedisSettings(config.server, environment),
  };
}

function httpAuthentication(
  auth: LoadedConfig["server"]["auth"],
  tokens: BearerTokens | undefined,
): ServerSettings["http"] {
  if (auth?.mode === "oauth") {
    if (tokens)
      throw new ConfigError(
        "JOBTASKS_AUTH_TOKENS",
        'server.auth.mode is "oauth": static tokens would not be used; unset it',
      );
    const { issuer, resource, audience, jwksUri, algorithms, tokenType, introspection } = auth;
    return {
      oauth: {
        issuer: issuer!,
        ...(resource !== undefined ? { resource } : {}),
        ...(audience !== undefined ? { audience } : {}),
        ...(jwksUri !== undefined ? { jwksUri } : {}),
        ...(algorithms !== undefined ? { algorithms } : {}),
        ...(tokenType !== undefined ? { tokenType } : {}),
        ...(introspection !== undefined
          ? {
              introspection: {
                clientId: introspection.clientId,
                clientSecret: introspection.clientSecret,
                jwts: introspection.jwts,
                cacheSeconds: introspection.cacheSeconds,
                ...(introspection.endpoint !== undefined ? { endpoint: introspection.endpoint } : {}),
              },
            }
          : {}),
        clockSkewSeconds: auth.clockSkewSeconds,
        requiredScopes: auth.requiredScopes,
        scopeClaims: auth.scopeClaims,
      },
    };
  }
  const tokenScopes = auth?.tokenScopes ?? {};
  for (const name of Object.keys(tokenScopes)) {
    if (!tokens?.principals.includes(name))
      throw new ConfigError(`server.auth.tokenScopes.${name}`, `JOBTASKS_AUTH_TOKENS has no token named "${name}"`);
  }
  return tokens ? { tokens, tokenScopes } : {};
}

/** Whether anyone who reaches the port may start jobs: a non-loopback address and no tokens. */
export function servesBeyondLoopbackWithoutTokens(settings: ServerSettings): boolean {
  return settings.tokens === undefined && settings.http.oauth === undefined && !isLoopbackHost(settings.host);
}

/** The task service a config describes; refuses tool-name clashes and unknown synchronous tools. */
export function buildTaskService(
  config: LoadedConfig,
  sealer: TaskIdSealer,
  logger: Logger,
  sharedState?: SharedState,
  histograms?: ProcessHistograms,
): TaskService {
  const pollsFromMemory = config.server.tracing?.pollsFromMemory ?? false;
  return new TaskService({
    ...(sharedState ? { sharedState } : {}),
    adapters: config.adapters,
    sealer,
    logger,
    defaultPollIntervalMs: config.server.pollIntervalMs,
    snapshotCacheMs: config.server.snapshotCacheMs,
    eventSnapshotCacheMs: config.server.eventSnapshotCacheMs,
    eventsLiveForMs: config.server.eventsLiveForMs,
    upstreamRetryBudgetMs: config.server.upstreamRetryBudgetMs,
    synchronousWaitMs: config.server.synchronousWaitMs,
    clientsWithoutTasks: config.server.clientsWithoutTasks,
    formsFromTaskStatus: config.server.formsFromTaskStatus,
    ...(config.server.auth ? { access: accessPolicyOf(config.server.auth) } : {}),
    // Built here, after the SDK was registered, as the service's default one would be.
    ...(pollsFromMemory || histograms
      ? {
          telemetry: new Telemetry({
            ...(pollsFromMemory ? { tracePollsFromMemory: true } : {}),
            ...(histograms ? { histograms } : {}),
          }),
        }
      : {}),
  });
}

function accessPolicyOf(auth: NonNullable<LoadedConfig["server"]["auth"]>): AccessPolicy {
  return new AccessPolicy({
    defaultToolScopes: auth.defaultToolScopes,
    toolScopes: auth.toolScopes,
    ...(auth.approvalScope !== undefined ? { approvalScope: auth.approvalScope } : {}),
    adapterApprovalScopes: auth.adapterApprovalScopes,
  });
}

/**
 * For `jobtasks check`: the sealer the environment would give, validated the way serve builds it, but
 * without generating a secret file (a check must not leave files behind).
 */
export async function checkOnlySealer(
  environment: Readonly<Record<string, string | undefined>>,
): Promise<TaskIdSealer> {
  const previousSecrets = readPreviousSecrets(environment);
  const secret = environment["JOBTASKS_SECRET"];
  if (secret)
    return new TaskIdSealer({
      secret: checkRotatable(secret, "JOBTASKS_SECRET"),
      previousSecrets,
      secretSource: "JOBTASKS_SECRET",
    });
  // A kept secret is checked the way serve reads it; a missing one would be generated, so any will do here.
  const file = secretFilePath(environment);
  const kept = await readKeptSecret(file);
  if (kept !== undefined)
    return new TaskIdSealer({ secret: checkRotatable(kept, file), previousSecrets, secretSource: file });
  return new TaskIdSealer({
    secret: randomBytes(32).toString("base64url"),
    previousSecrets,
    secretSource: "JOBTASKS_PREVIOUS_SECRETS",
  });
}

/** A TCP port from an environment variable or a flag; `name` is what the error points at. */
export function parsePort(name: string, value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(name, `expected an integer from 0 to 65535, got "${value}"`);
  }
  return port;
}
