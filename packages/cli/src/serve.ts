import {
  TaskIdSealer,
  connectRedisSharedState,
  createLogger,
  noSharedState,
  startHttpServer,
  startMetricsServer,
  startStdioServer,
  type Logger,
} from "@jobtasks/server";
import { ConfigError } from "@jobtasks/core";
import { planObservability, startObservability } from "./observability.js";
import { buildTaskService, readServerSettings, servesBeyondLoopbackWithoutTokens } from "./server-settings.js";
import { loadConfig } from "./load-config.js";
import { resolveSecret } from "./secret.js";
import { packageVersion } from "./package-version.js";
import { whileListening } from "./listen-error.js";
import { restartWithAsyncContextFramesIfUseful, restartedMessage, restartedVariable } from "./async-context-frames.js";

export interface ServeOptions {
  config: string;
  port?: number;
  host?: string;
  stdio?: boolean;
  /** Overrides JOBTASKS_LOG_LEVEL and server.logLevel (the --log-level flag). */
  logLevel?: string;
  environment?: Readonly<Record<string, string | undefined>>;
  /**
   * On Node 22 with telemetry on, restart the process in place with async context frames (see
   * async-context-frames.ts). The command line's own; a program embedding serve() leaves it off.
   */
  restartForAsyncContextFrames?: boolean;
}

export interface RunningServer {
  /** The HTTP endpoint, or undefined under stdio. */
  url: string | undefined;
  logger: Logger;
  close(): Promise<void>;
}

/** `jobtasks serve`: load the config, open the secret, and serve over HTTP or stdio. */
export async function serve(options: ServeOptions): Promise<RunningServer> {
  const environment = options.environment ?? process.env;
  const config = await loadConfig(options.config, environment);
  const settings = readServerSettings(config, environment, {
    port: options.port,
    host: options.host,
    stdio: options.stdio,
    logLevel: options.logLevel,
  });
  const logger = createLogger({ level: settings.logLevel, name: config.server.name });
  const observabilityPlan = planObservability(config.server, environment);
  if (
    options.restartForAsyncContextFrames &&
    (observabilityPlan.metrics !== undefined || observabilityPlan.traces !== undefined)
  ) {
    // Before anything is started or read from stdin: the process may be replaced here.
    const advice = restartWithAsyncContextFramesIfUseful();
    if (advice !== undefined) logger.info(advice);
    else if (process.env[restartedVariable] === "1") logger.info(restartedMessage);
  }
  const secret = await resolveSecret(environment);
  const sealer = new TaskIdSealer({
    secret: secret.secret,
    previousSecrets: secret.previousSecrets,
    secretSource: secret.source,
  });
  logger.info(
    { keyId: sealer.currentKeyId, previousKeys: secret.previousSecrets.length, source: secret.source },
    secret.generated
      ? `generated a task-id secret and kept it in ${secret.source}; set JOBTASKS_SECRET to share one between replicas`
      : `task ids are sealed with the secret from ${secret.source}`,
  );
  if (options.stdio && config.server.metrics && config.server.metrics.port === undefined)
    throw new ConfigError(
      "server.metrics.port",
      "stdio has no HTTP port for /metrics: give the metrics a port of their own",
    );
  // Registered before the service is built, which records telemetry only if an SDK is registered then.
  const observability = await startObservability(
    observabilityPlan,
    { name: config.server.name, version: packageVersion },
    environment,
    logger,
  );
  // Only a server.redis (or JOBTASKS_REDIS_URL) loads the Redis client; a Redis not there yet delays nothing.
  const sharedState = settings.redis
    ? await connectRedisSharedState({
        url: settings.redis.url,
        ...(settings.redis.password !== undefined ? { password: settings.redis.password } : {}),
        keyPrefix: settings.redis.keyPrefix,
        commandTimeoutMs: settings.redis.commandTimeoutMs,
        logger,
      })
    : noSharedState;
  const service = buildTaskService(config, sealer, logger, sharedState, observability.histograms);
  const metricsSettings = config.server.metrics;
  // On its own port when one is given (always under stdio, which has no HTTP port); else beside /mcp.
  const metricsServer =
    observability.metricsEndpoint && metricsSettings?.port !== undefined
      ? await startMetricsServer({
          endpoint: observability.metricsEndpoint,
          host: metricsSettings.host ?? settings.host,
          port: metricsSettings.port,
        })
      : undefined;
  if (metricsServer) logger.info({ url: metricsServer.url }, "serving metrics");
  const stopObservability = async () => {
    await metricsServer?.close();
    await observability.shutdown();
  };
  keepServingOnStrayRejections(logger);
  const common = {
    service,
    logger,
    name: config.server.name,
    version: packageVersion,
    ...(config.server.instructions ? { instructions: config.server.instructions } : {}),
  };
  const tools = service.registry.tools.map((tool) => tool.tool.name);

  if (options.stdio) {
    const stdio = startStdioServer(common);
    logger.info({ tools }, "serving MCP on stdio");
    return {
      url: undefined,
      logger,
      close: async () => {
        // Every open wait answers with the current status before the transport goes (the SDK writes those
        // answers once their handlers return: one turn of the event loop).
        await service.stopWaiting();
        await new Promise((resolve) => setImmediate(resolve));
        await stdio.close();
        await service.close();
        await sharedState.close();
        await stopObservability();
      },
    };
  }

  const { host, port } = settings;
  const http = await whileListening(
    "port",
    startHttpServer({
      ...common,
      host,
      port,
      allowedOrigins: config.server.allowedOrigins,
      ...settings.http,
      ...(observability.metricsEndpoint && !metricsServer ? { metrics: observability.metricsEndpoint } : {}),
    }),
  );
  logger.info(
    {
      url: http.url,
      tools,
      auth: http.auth,
    },
    "listening",
  );
  if (servesBeyondLoopbackWithoutTokens(settings)) {
    logger.warn(
      { host },
      "serving beyond loopback without JOBTASKS_AUTH_TOKENS: anyone who reaches this port can start jobs",
    );
  }
  return {
    url: http.url,
    logger,
    close: async () => {
      await http.close();
      await service.close();
      await sharedState.close();
      await stopObservability();
    },
  };
}

let strayRejectionLogger: Logger | undefined;

/**
 * A stray rejected promise in an adapter (a timer callback, a socket event) must not take every task of
 * this server down with it: it is a bug to log, not a reason to stop serving. One listener per process.
 */
function keepServingOnStrayRejections(logger: Logger): void {
  if (strayRejectionLogger === undefined) {
    process.on("unhandledRejection", (reason) =>
      strayRejectionLogger?.error({ err: reason }, "unhandled promise rejection (a bug in an adapter or in jobtasks)"),
    );
  }
  strayRejectionLogger = logger;
}
