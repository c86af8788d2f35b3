import { z } from "@jobtasks/core";
import { singlePlaceholder } from "./template.js";

/** HTTP header names are tokens; anything else would be refused by undici at request time. */
export const headerNameSchema = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "expected an HTTP header name");

const httpStatusSchema = z.number().int().min(100).max(599);

/**
 * A URL template: a path appended to `baseUrl` ("/jobs/{{job.id}}"), or a single placeholder whose value
 * is a whole URL (a status URL from a header), which must then be on `baseUrl`'s origin or an allowed one.
 * A literal scheme or host is refused so that every request provably stays on configured origins.
 */
export const urlTemplateSchema = z
  .string()
  .min(1)
  .refine((template) => singlePlaceholder(template) !== undefined || !/^[a-z][a-z0-9+.-]*:|^\/\//i.test(template), {
    message: 'expected a path relative to baseUrl ("/jobs/{{job.id}}"), not a URL with a scheme or host',
  })
  .refine((template) => !template.includes("?") && !template.includes("#"), {
    message: "put query parameters under `query`, not in the URL template",
  });

/** One HTTP request the adapter makes, described declaratively. */
export const requestOptionsSchema = z.object({
  /** HTTP method. Default: POST for requests that change something, GET for reads. */
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]).optional(),
  /** URL template, see urlTemplateSchema. */
  url: urlTemplateSchema,
  /** Query parameters: name → value template. A parameter whose value is absent is left out. */
  query: z.record(z.string().min(1), z.string()).optional(),
  /** Request headers: name → value template. A header whose value is absent is left out. */
  headers: z.record(headerNameSchema, z.string()).optional(),
  /** JSON body template (any JSON; strings may hold placeholders). Sent as application/json. */
  body: z.json().optional(),
  /** HTTP statuses that mean success. Default depends on the request (documented per request). */
  acceptedStatus: z.array(httpStatusSchema).min(1).optional(),
});
export type RequestOptions = z.infer<typeof requestOptionsSchema>;

export { httpStatusSchema };
