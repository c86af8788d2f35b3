// Serving: the extension's semantics, and the transports that carry them.
export { TaskService, defaultPollIntervalMs } from "./task-service.js";
export type { CallerContext, TaskServiceOptions } from "./task-service.js";
// The HTTP stack loads on the first call, so a stdio server never pays for it.
export { startHttpServer } from "./start-http-server.js";
export type { HttpServerOptions, RunningHttpServer } from "./http-server.js";
export { startStdioServer } from "./stdio-server.js";
export type { StdioServerOptions } from "./stdio-server.js";
export { createMcpServer } from "./mcp-server.js";
export type { McpServerOptions } from "./mcp-server.js";
export { clientsWithoutTasksModes } from "./clients-without-tasks.js";
export type { ClientsWithoutTasks } from "./clients-without-tasks.js";
export { runTaskSubscription } from "./task-subscription.js";
export type { TaskSubscriptionOptions } from "./task-subscription.js";
export { TaskListenTransport } from "./task-listen-transport.js";
export type { TaskListenTransportOptions } from "./task-listen-transport.js";
// Who may call, and from where.
export { BearerTokens } from "./auth.js";
export { AccessPolicy } from "./access-policy.js";
export type { AccessPolicyOptions, AuthenticatedCaller, GrantedScopes } from "./access-policy.js";
export { asymmetricAlgorithms } from "./asymmetric-algorithms.js";
export type { AsymmetricAlgorithm } from "./asymmetric-algorithms.js";
export type { OAuthOptions, OAuthAuthenticator } from "./oauth/oauth-authenticator.js";
export type { IntrospectionOptions } from "./oauth/token-introspection.js";
export { isLoopbackHost } from "./loopback-address.js";
export { isOrigin, originExpectation } from "./request-guard.js";
export { createLogger, createSilentLogger } from "./logger.js";
export type { Logger } from "./logger.js";
// Task ids: the upstream reference, sealed and bound to the caller.
export { TaskIdSealer, TaskIdTooLongError, maximumTaskIdLength, minimumSecretLength } from "./task-id.js";
export { MemoizedTaskIdOpener, defaultMemoizedOpens, type TaskIdOpener } from "./memoized-task-id-opener.js";
export type { TaskIdSealerOptions, TaskReference } from "./task-id.js";
// What a snapshot becomes on the wire.
export { toCreateTaskResult, toDetailedTask } from "./task-shape.js";
export type { CreateTaskResult, DetailedTask, TaskFields, TaskMetadata } from "./task-shape.js";
// The pieces inside TaskService, for embedding and tests.
export { SnapshotReader, readerDefaults } from "./snapshot-reader.js";
export { jobIdentity } from "./job-identity.js";
export type { JobIdentity, JobTarget } from "./job-identity.js";
export type { ReadTarget, SnapshotReaderOptions } from "./snapshot-reader.js";
export { ToolRegistry } from "./tool-registry.js";
export type { AdapterInstance, ToolDescriptor } from "./tool-registry.js";
export { TaskProtocolError, errorCodes } from "./protocol-error.js";
// What replicas share (Redis, loaded only when configured).
export { connectRedisSharedState } from "./connect-shared-state.js";
export type { RedisSharedStateOptions } from "./redis-shared-state.js";
export { noSharedState } from "./shared-state.js";
export type { SharedState } from "./shared-state.js";
// Operating the server: health and readiness, OpenTelemetry traces and metrics, the Prometheus endpoint.
export { Readiness, credentialsRefused } from "./readiness.js";
export type { ReadinessCheck, ReadinessState } from "./readiness.js";
export { Telemetry, instrumentationScope } from "./telemetry.js";
export type { SnapshotReadSource } from "./telemetry.js";
export { ProcessHistograms } from "./process-histograms.js";
export type { CollectedHistogram, ProducedMetrics } from "./process-histograms.js";
export { createMetricsEndpoint, prometheusContentType, startMetricsServer } from "./metrics-endpoint.js";
export type { MetricsEndpoint, MetricsEndpointOptions, RunningMetricsServer } from "./metrics-endpoint.js";
