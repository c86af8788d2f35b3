import { z } from "@jobtasks/core";
import type { V1Job } from "@kubernetes/client-node";
import { annotations, labels } from "./job-annotations.js";
import type { InputDefinition, JobToolOptions } from "./job-template-options.js";
import { fillPlaceholders, placeholderNames } from "./placeholders.js";

/**
 * A tool's Job: the operator's template with the caller's validated values in the places it marks, the
 * adapter's labels, and a generateName. Nothing of the caller reaches any other field.
 */

/** The zod schema of a tool's inputs: what the agent sees, and what the server validates before doStart. */
export function toolInputSchema(inputs: Readonly<Record<string, InputDefinition>>) {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, definition] of Object.entries(inputs)) shape[name] = inputSchemaOf(definition);
  return z.strictObject(shape);
}

function inputSchemaOf(definition: InputDefinition): z.ZodType {
  let schema: z.ZodType;
  if (definition.enum && definition.type === "string") {
    const values = definition.enum.map(String);
    schema = z.enum(values as [string, ...string[]]);
  } else if (definition.type === "string") {
    let text = z.string().max(definition.maxLength ?? 1024);
    if (definition.minLength !== undefined) text = text.min(definition.minLength);
    if (definition.pattern !== undefined) text = text.regex(new RegExp(definition.pattern));
    schema = text;
  } else if (definition.type === "boolean") {
    schema = z.boolean();
  } else {
    let number = definition.type === "integer" ? z.number().int() : z.number();
    if (definition.minimum !== undefined) number = number.min(definition.minimum);
    if (definition.maximum !== undefined) number = number.max(definition.maximum);
    schema = definition.enum
      ? number.refine((value) => definition.enum!.includes(value), `one of ${definition.enum.join(", ")}`)
      : number;
  }
  if (definition.description) schema = schema.describe(definition.description);
  return definition.default !== undefined ? schema.default(definition.default as never) : schema;
}

/** A label value from a name: at most 63 characters, alphanumeric at both ends. */
export function labelValueOf(name: string): string {
  return name
    .replace(/[^A-Za-z0-9_.-]/g, "-")
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "");
}

export interface ManifestContext {
  toolName: string;
  instanceLabel: string;
  startId: string;
}

export function buildJobManifest(
  tool: JobToolOptions,
  input: Readonly<Record<string, unknown>>,
  context: ManifestContext,
): V1Job {
  const template = tool.template;
  // Kubernetes expands $(NAME) in args and env values (from the container's env and the namespace's service
  // variables) and reads $$ as a literal $: a caller's value is written with every $ doubled, so that it
  // arrives as typed and never reads a variable the operator did not hand out.
  const literal = Object.fromEntries(
    Object.entries(input).map(([name, value]) => [
      name,
      typeof value === "string" ? value.replaceAll("$", () => "$$") : value,
    ]),
  );
  const ownLabels = {
    ...template.labels,
    [labels.instance]: context.instanceLabel,
    [labels.tool]: labelValueOf(context.toolName),
  };
  const count = (value: number | string | undefined) =>
    typeof value === "string" ? Number(input[placeholderNames(value)[0]!]) : value;
  const spec = {
    ...(tool.approval ? { suspend: true } : {}),
    ...(template.backoffLimit !== undefined ? { backoffLimit: template.backoffLimit } : {}),
    ...(template.activeDeadlineSeconds !== undefined
      ? { activeDeadlineSeconds: count(template.activeDeadlineSeconds)! }
      : {}),
    ...(template.parallelism !== undefined ? { parallelism: count(template.parallelism)! } : {}),
    ...(template.completions !== undefined ? { completions: count(template.completions)! } : {}),
    ...(template.completionMode !== undefined ? { completionMode: template.completionMode } : {}),
    ...(template.ttlSecondsAfterFinished !== undefined
      ? { ttlSecondsAfterFinished: template.ttlSecondsAfterFinished }
      : {}),
  };
  const container = {
    name: "job",
    image: template.image,
    ...(template.imagePullPolicy ? { imagePullPolicy: template.imagePullPolicy } : {}),
    ...(template.command ? { command: template.command } : {}),
    ...(template.args ? { args: template.args.map((arg) => fillPlaceholders(arg, literal)) } : {}),
    ...(template.workingDir ? { workingDir: template.workingDir } : {}),
    ...(template.env
      ? {
          env: Object.entries(template.env).map(([name, value]) => ({ name, value: fillPlaceholders(value, literal) })),
        }
      : {}),
    ...(template.resources
      ? {
          resources: {
            ...(template.resources.requests ? { requests: template.resources.requests } : {}),
            ...(template.resources.limits ? { limits: template.resources.limits } : {}),
          },
        }
      : {}),
  };
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      generateName: `${tool.generateName ?? labelValueOf(tool.name).toLowerCase().replaceAll("_", "-").replaceAll(".", "-").slice(0, 57)}-`,
      namespace: tool.namespace,
      labels: { ...ownLabels, [labels.start]: context.startId },
      ...(tool.approval ? { annotations: { [annotations.approval]: "pending" } } : {}),
    },
    spec: {
      ...spec,
      template: {
        metadata: { labels: ownLabels },
        spec: {
          restartPolicy: template.restartPolicy,
          ...(template.serviceAccountName ? { serviceAccountName: template.serviceAccountName } : {}),
          ...(template.nodeSelector ? { nodeSelector: template.nodeSelector } : {}),
          containers: [container],
        },
      },
    },
  };
}
