import { z } from "@jobtasks/core";
import { jobToolOptionsSchema } from "./job-template-options.js";

/**
 * The options of one Kubernetes adapter instance: what the `options` block of a config file holds, and what
 * `kubernetes(options)` takes besides its programmatic extras (a kubeconfig given as text, a clock).
 */

/** A namespace name as Kubernetes spells it (a DNS-1123 label). */
export const namespacePattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const namespaceName = z.string().max(63).regex(namespacePattern, "a namespace name (lower-case letters, digits, -)");
/** A label value: at most 63 characters, alphanumeric at both ends, `-_.` inside. */
const labelValue = z
  .string()
  .max(63)
  .regex(/^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/, "a label value (letters, digits, -_. inside, at most 63)");

export const kubernetesOptionsSchema = z
  .strictObject({
    /**
     * Where the cluster and the credentials come from. `kubeconfig` (default): the file at `kubeconfig`, else
     * KUBECONFIG, else ~/.kube/config, with its current context or `context`. `in-cluster`: the pod's service
     * account (the token and CA jobtasks finds in /var/run/secrets/kubernetes.io/serviceaccount, and
     * KUBERNETES_SERVICE_HOST). `auto`: in-cluster when KUBERNETES_SERVICE_HOST is set, else kubeconfig.
     */
    connection: z
      .strictObject({
        mode: z.enum(["auto", "kubeconfig", "in-cluster"]).default("auto"),
        /** Path of the kubeconfig file (default: KUBECONFIG, then ~/.kube/config). */
        kubeconfig: z.string().min(1).optional(),
        /** The kubeconfig context to use (default: its current-context). */
        context: z.string().min(1).optional(),
      })
      .default({ mode: "auto" }),
    /** The only namespaces the tools may create, read, watch or delete Jobs in. */
    allowedNamespaces: z.array(namespaceName).min(1),
    /**
     * The value of the `jobtasks.io/instance` label every Job this server creates carries, next to
     * `jobtasks.io/tool` (default "jobtasks"): name the server instance, so that `kubectl get jobs -l` finds its jobs.
     */
    instanceLabel: labelValue.default("jobtasks"),
    /** One tool per Job template. */
    tools: z.array(jobToolOptionsSchema).default([]),
    /** Offer `watch_job` (follow a Job started elsewhere, a CronJob's run for instance) (default true). */
    watchJob: z.boolean().default(true),
    /** Prepended to every tool name (default ""). */
    toolPrefix: z
      .string()
      .regex(/^[A-Za-z0-9_-]*$/, "letters, digits, _ and - only")
      .default(""),
    /** Suggested client polling interval (default 5 000 ms): reads cost no request, the watch holds the jobs. */
    pollIntervalMs: z.number().int().positive().default(5000),
    /** One API request's deadline (default 15 000 ms). */
    requestTimeoutMs: z.number().int().positive().default(15_000),
    /** The watch of each namespace. */
    watch: z
      .strictObject({
        /** First wait before reconnecting a failed watch, doubled each time up to maxBackoffMs (default 500 ms). */
        backoffMs: z.number().int().positive().default(500),
        /** Longest wait between reconnects (default 30 000 ms). */
        maxBackoffMs: z.number().int().positive().default(30_000),
        /** How long the API server keeps one watch request open before it is renewed (default 300 s). */
        timeoutSeconds: z.number().int().positive().max(3600).default(300),
      })
      .default({ backoffMs: 500, maxBackoffMs: 30_000, timeoutSeconds: 300 }),
    /** How often the pods of a Job whose pods are not all ready are read again, for their reason (default 5 000 ms). */
    podReadIntervalMs: z.number().int().positive().default(5000),
    /** Budget for the pod logs put in a result: small enough for a model's context. */
    logs: z
      .strictObject({
        /** Last lines kept per pod (default 40). */
        maxLinesPerPod: z.number().int().nonnegative().default(40),
        /** Total bytes of log text in one result (default 6 000). */
        maxBytes: z.number().int().nonnegative().default(6000),
        /** Pods whose logs are read, one request each (default 3). */
        maxPods: z.number().int().nonnegative().default(3),
      })
      .default({ maxLinesPerPod: 40, maxBytes: 6000, maxPods: 3 }),
    /**
     * For clients without the tasks extension: how long to wait for a quick finish before answering with a
     * handle (server `clientsWithoutTasks: handles`), or for the whole job (`wait`). Unset: at once / -32021.
     */
    synchronousWaitMs: z.number().int().positive().optional(),
  })
  .superRefine((options, context) => {
    const names = new Set<string>();
    for (const [index, tool] of options.tools.entries()) {
      if (!options.allowedNamespaces.includes(tool.namespace))
        context.addIssue({
          code: "custom",
          path: ["tools", index, "namespace"],
          message: `"${tool.namespace}" is not in allowedNamespaces`,
        });
      const name = `${options.toolPrefix}${tool.name}`;
      if (names.has(name) || (options.watchJob && name === `${options.toolPrefix}watch_job`))
        context.addIssue({ code: "custom", path: ["tools", index, "name"], message: `"${name}" is used twice` });
      names.add(name);
    }
    if (options.tools.length === 0 && !options.watchJob)
      context.addIssue({ code: "custom", path: ["tools"], message: "no tool: give a job template or keep watchJob" });
  });

/** The options as written in a config file (defaults optional). */
export type KubernetesConfig = z.input<typeof kubernetesOptionsSchema>;
/** The options with every default applied. */
export type ResolvedKubernetesConfig = z.output<typeof kubernetesOptionsSchema>;
