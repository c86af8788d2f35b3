import { z } from "@jobtasks/core";
import { placeholderNames, placeholderPattern, wholePlaceholder } from "./placeholders.js";

/**
 * One tool's options: the namespace, the Job template and the input schema whose values fill the places
 * the template marks with `{{name}}`. Only args, env values and three counts take placeholders: a caller
 * never writes YAML, and never reaches a field the operator did not open.
 */

const inputName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "letters, digits and _, not starting with a digit");

/** What the caller may give for one placeholder, in JSON Schema's words (a subset). */
const inputDefinitionSchema = z.strictObject({
  type: z.enum(["string", "integer", "number", "boolean"]),
  /** What the agent reads about this input. */
  description: z.string().min(1).max(500).optional(),
  /** The only values allowed. */
  enum: z
    .array(z.union([z.string(), z.number()]))
    .min(1)
    .optional(),
  /** A regular expression a string must match (whole value: write ^…$). */
  pattern: z
    .string()
    .refine((pattern) => {
      try {
        new RegExp(pattern);
        return true;
      } catch {
        return false;
      }
    }, "not a valid regular expression")
    .optional(),
  minLength: z.number().int().nonnegative().optional(),
  /** At most this many characters (default 1024 for strings). */
  maxLength: z.number().int().positive().optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  /** The value when the caller gives none; without it the input is required. */
  default: z.union([z.string(), z.number(), z.boolean()]).optional(),
});

const countField = z.union([
  z.number().int().nonnegative(),
  z.string().regex(wholePlaceholder, "an integer or {{input}}"),
]);
const quantities = z.record(z.string().min(1).max(253), z.string().min(1).max(64));
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, "an environment variable name");
const labelKey = z.string().regex(/^([a-z0-9.-]+\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/, "a label key");
const labelValue = z.string().regex(/^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/, "a label value");

export const jobTemplateSchema = z.strictObject({
  image: z.string().min(1).max(1000),
  imagePullPolicy: z.enum(["Always", "IfNotPresent", "Never"]).optional(),
  command: z.array(z.string().max(4096)).optional(),
  /** Arguments; `{{input}}` inside an argument is replaced by the input's value (no shell is involved). */
  args: z.array(z.string().max(4096)).optional(),
  workingDir: z.string().min(1).optional(),
  /** Environment variables; `{{input}}` inside a value is replaced by the input's value. */
  env: z.record(envName, z.string().max(32_768)).optional(),
  resources: z.strictObject({ requests: quantities.optional(), limits: quantities.optional() }).optional(),
  serviceAccountName: z.string().min(1).max(253).optional(),
  nodeSelector: z.record(labelKey, labelValue).optional(),
  restartPolicy: z.enum(["Never", "OnFailure"]).default("Never"),
  backoffLimit: z.number().int().nonnegative().optional(),
  activeDeadlineSeconds: countField.optional(),
  parallelism: countField.optional(),
  completions: countField.optional(),
  completionMode: z.enum(["NonIndexed", "Indexed"]).optional(),
  ttlSecondsAfterFinished: z.number().int().nonnegative().optional(),
  /** Labels of the Job and its pods, besides the adapter's own (jobtasks.io/instance, jobtasks.io/tool). */
  labels: z.record(labelKey, labelValue).optional(),
});

export const jobToolOptionsSchema = z
  .strictObject({
    /** The tool's name (before the adapter's toolPrefix). */
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "letters, digits, _ and - only"),
    title: z.string().min(1).max(200).optional(),
    /** What the agent reads about the tool. */
    description: z.string().min(1).max(2000),
    /** The namespace the Jobs are created in; one of allowedNamespaces. */
    namespace: z.string().min(1),
    /** The Jobs' generateName (default: the tool's name, lower-cased, with a final "-"). */
    generateName: z
      .string()
      .max(57)
      .regex(/^[a-z0-9]([-a-z0-9]*)?$/, "lower-case letters, digits and -")
      .optional(),
    /**
     * Ask before running: the Job is created suspended (spec.suspend: true), the task asks this question as
     * an approval, and an approval un-suspends it; a rejection deletes it.
     */
    approval: z.strictObject({ question: z.string().min(1).max(1000) }).optional(),
    /** The caller's arguments, by placeholder name. */
    inputs: z.record(inputName, inputDefinitionSchema).default({}),
    template: jobTemplateSchema,
  })
  .superRefine((tool, context) => {
    const declared = new Set(Object.keys(tool.inputs));
    const check = (value: string, path: (string | number)[]) => {
      for (const name of placeholderNames(value))
        if (!declared.has(name))
          context.addIssue({ code: "custom", path, message: `{{${name}}} names no input of this tool` });
      // A caller's "(NAME)" after the template's own "$" would make Kubernetes' $(NAME) expansion read another
      // variable of the container: the caller's $ are escaped, the template's are the operator's to write.
      // ($$ is Kubernetes' literal $, so only an odd run of $ before the mark is one.)
      if (/(?:^|[^$])(?:\$\$)*\$\{\{/.test(value))
        context.addIssue({
          code: "custom",
          path,
          message:
            "a $ right before {{…}} would let a value become $(NAME), which Kubernetes expands; write $$ for a literal $",
        });
    };
    const template = tool.template;
    template.args?.forEach((arg, index) => check(arg, ["template", "args", index]));
    for (const [key, value] of Object.entries(template.env ?? {})) check(value, ["template", "env", key]);
    for (const field of ["activeDeadlineSeconds", "parallelism", "completions"] as const) {
      const value = template[field];
      if (typeof value !== "string") continue;
      check(value, ["template", field]);
      const name = placeholderNames(value)[0];
      if (name !== undefined && tool.inputs[name] && tool.inputs[name].type !== "integer")
        context.addIssue({
          code: "custom",
          path: ["template", field],
          message: `{{${name}}} fills a count: the input must be of type integer`,
        });
    }
    // Anything else stays as the operator wrote it; a placeholder there would be a field opened by mistake.
    const { args: _args, env: _env, activeDeadlineSeconds: _a, parallelism: _p, completions: _c, ...closed } = template;
    if (placeholderPattern().test(JSON.stringify(closed)))
      context.addIssue({
        code: "custom",
        path: ["template"],
        message: "{{…}} is filled only in args, env values, activeDeadlineSeconds, parallelism and completions",
      });
    const used = new Set(placeholderNames(JSON.stringify(template)));
    for (const name of declared)
      if (!used.has(name))
        context.addIssue({ code: "custom", path: ["inputs", name], message: "no {{…}} of the template uses it" });
  });

export type JobToolOptions = z.output<typeof jobToolOptionsSchema>;
export type JobTemplate = z.output<typeof jobTemplateSchema>;
export type InputDefinition = z.output<typeof inputDefinitionSchema>;
