import { UpstreamError, terminalSafe } from "@jobtasks/core";
import { tailWithinBytes } from "@jobtasks/core/adapter-utils";
import type { V1Pod } from "@kubernetes/client-node";
import type { KubernetesApi } from "./kubernetes-api.js";
import type { ResolvedKubernetesConfig } from "./kubernetes-options.js";

/**
 * The end of some pods' logs, small enough for a model's context: bounded in pods, in lines per pod (the
 * API's tailLines) and in bytes per result (a cut here that keeps the end; the API's limitBytes, which keeps
 * the start, only bounds the read). A log that cannot be read is a note, never a failed status read. The
 * core redacts the credentials from it.
 */

export type LogSettings = ResolvedKubernetesConfig["logs"];

export interface LogTail {
  pod: string;
  container: string;
  text: string;
  /** Why the text may not be the whole end of the log, when it may not. */
  note?: string;
}

export async function tailPodLogs(
  api: KubernetesApi,
  namespace: string,
  pods: readonly V1Pod[],
  settings: LogSettings,
  signal: AbortSignal,
): Promise<LogTail[]> {
  let budget = settings.maxBytes;
  const tails: LogTail[] = [];
  for (const pod of pods.slice(0, settings.maxPods)) {
    if (budget <= 0 || settings.maxLinesPerPod === 0) break;
    const name = pod.metadata?.name ?? "";
    const container = pod.spec?.containers[0]?.name ?? "";
    try {
      const limit = budget;
      // The API's limitBytes keeps the first bytes of the tail, which would drop its last lines (where the
      // error is): it only bounds the read here, well above the budget, and the cut to the budget keeps the end.
      const readLimit = Math.min(Math.max(limit * 8, 64 * 1024), 1024 * 1024);
      const text = String(
        await api.readPodLog(
          namespace,
          name,
          { container, tailLines: settings.maxLinesPerPod, limitBytes: readLimit },
          signal,
        ),
      );
      const safe = terminalSafe(text);
      const kept = tailWithinBytes(safe, limit);
      budget -= Buffer.byteLength(kept);
      // The API stops at limitBytes: a log that filled it was cut there.
      const cut = Buffer.byteLength(text) >= readLimit || kept.length < safe.length;
      tails.push({
        pod: name,
        container,
        text: kept,
        ...(cut ? { note: `cut to the result's budget of ${settings.maxBytes} bytes of logs` } : {}),
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const refusal = error instanceof UpstreamError ? error.message : "the log could not be read";
      tails.push({ pod: name, container, text: "", note: `no log: ${refusal}` });
    }
  }
  return tails;
}
