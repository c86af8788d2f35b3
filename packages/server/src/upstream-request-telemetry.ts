import { SpanKind, context, type Attributes } from "@opentelemetry/api";
import type { UpstreamRequestObserver, UpstreamRequestOutcome } from "@jobtasks/core/adapter-utils";
import { adapterInstanceKey, markFailed, resendCountKey, type Telemetry } from "./telemetry.js";
import { traceparentOf } from "./trace-context.js";

/** The last rate budget each adapter instance's credential reported, for the gauge. */
type RateBudgets = Map<string, { instance: string; credential: string; remaining: number; limit: number | undefined }>;

/**
 * The server's side of the adapters' upstream-request reports (core's upstream-requests.ts): a client
 * span per request, child of the span active where the adapter sent it, with a `traceparent` for the
 * request; the duration histogram by adapter instance, operation, method and status; and the last rate
 * budget each credential reported. The adapter instance comes from the context the server called the
 * adapter in (Telemetry.forInstance).
 */
export function createUpstreamRequestObserver(telemetry: Telemetry): UpstreamRequestObserver {
  const budgets: RateBudgets = new Map();
  const gaugeOptions = { unit: "{request}" };
  telemetry.gauge(
    "jobtasks.upstream.rate_limit.remaining",
    { description: "Requests left in the credential's rate budget, as the upstream last reported it", ...gaugeOptions },
    (report) => {
      for (const budget of budgets.values())
        report(budget.remaining, {
          "jobtasks.adapter.instance": budget.instance,
          "jobtasks.credential": budget.credential,
        });
    },
  );
  telemetry.gauge(
    "jobtasks.upstream.rate_limit.limit",
    { description: "The credential's rate budget per window, as the upstream last reported it", ...gaugeOptions },
    (report) => {
      for (const budget of budgets.values())
        if (budget.limit !== undefined)
          report(budget.limit, {
            "jobtasks.adapter.instance": budget.instance,
            "jobtasks.credential": budget.credential,
          });
    },
  );
  return {
    begin(request) {
      const active = context.active();
      const instance = (active.getValue(adapterInstanceKey) as string | undefined) ?? "_unknown";
      // The adapter's own count of resends, else the server reader's retries of the status read.
      const resendCount = request.resendCount ?? (active.getValue(resendCountKey) as number | undefined);
      const attributes: Attributes = {
        "jobtasks.adapter.instance": instance,
        "jobtasks.upstream.operation": request.operation,
        "http.request.method": request.method,
      };
      const span = telemetry.startSpan(
        `${request.method} ${request.urlTemplate}`,
        {
          ...attributes,
          "url.template": request.urlTemplate,
          ...(resendCount ? { "http.request.resend_count": resendCount } : {}),
        },
        { kind: SpanKind.CLIENT, parent: active },
      );
      const startedAt = performance.now();
      let ended = false;
      return {
        headers: span ? { traceparent: traceparentOf(span.spanContext()) } : {},
        end(outcome: UpstreamRequestOutcome) {
          if (ended) return;
          ended = true;
          const status = outcome.status !== undefined ? { "http.response.status_code": outcome.status } : {};
          const errorType =
            outcome.errorType ??
            (outcome.status !== undefined && outcome.status >= 400 ? String(outcome.status) : undefined);
          const failure = errorType !== undefined ? { "error.type": errorType } : {};
          // The operation and method come from the adapter's code, the instance from the config.
          telemetry.instruments?.upstreamDuration.record(
            (performance.now() - startedAt) / 1000,
            `${instance} ${request.operation} ${request.method} ${outcome.status ?? ""} ${errorType ?? ""}`,
            () => ({ ...attributes, ...status, ...failure }),
          );
          if (outcome.rateLimit) {
            const credential = outcome.rateLimit.credential ?? "default";
            budgets.set(`${instance}\u0000${credential}`, {
              instance,
              credential,
              remaining: outcome.rateLimit.remaining,
              limit: outcome.rateLimit.limit,
            });
          }
          if (span) {
            span.setAttributes(status);
            if (errorType !== undefined) markFailed(span, errorType);
            span.end();
          }
        },
      };
    },
  };
}
