import { z } from "@jobtasks/core";
import type { CallToolResult } from "@jobtasks/core";
import type { FixtureTool } from "./fixture-tool.js";

/**
 * Jobs that are finished the moment they start, each ending with one kind of tool result (text, image,
 * audio, an embedded resource, a mix, an error). The server answers them with the plain result.
 */

/** A 1×1 transparent PNG. */
const pngBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR4nGNgAAIAAAUAAXpeqz8AAAAASUVORK5CYII=";
/** One millisecond of silence: 8 samples of 16-bit mono PCM at 8 kHz. */
const wavBase64 = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";

function instantTool(name: string, description: string, result: CallToolResult): FixtureTool<Record<string, never>> {
  return {
    name,
    description,
    inputSchema: z.object({}),
    synchronousWaitMs: 30_000,
    observe: () => ({ status: "completed", rawStatus: result.isError ? "failed" : "succeeded", result }),
  };
}

export const contentTools: readonly FixtureTool[] = [
  instantTool("test_simple_text", "Answers with one text block.", {
    content: [{ type: "text", text: "This is a simple text response for testing." }],
  }),
  instantTool("test_image_content", "Answers with one PNG image.", {
    content: [{ type: "image", data: pngBase64, mimeType: "image/png" }],
  }),
  instantTool("test_audio_content", "Answers with one WAV clip.", {
    content: [{ type: "audio", data: wavBase64, mimeType: "audio/wav" }],
  }),
  instantTool("test_embedded_resource", "Answers with one embedded text resource.", {
    content: [
      {
        type: "resource",
        resource: {
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content.",
        },
      },
    ],
  }),
  instantTool("test_multiple_content_types", "Answers with text, an image and an embedded resource.", {
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: pngBase64, mimeType: "image/png" },
      {
        type: "resource",
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: '{"test":"data","value":123}',
        },
      },
    ],
  }),
  instantTool("test_error_handling", "Ends as a job that failed: a result with isError.", {
    content: [{ type: "text", text: "This tool intentionally returns an error for testing" }],
    isError: true,
  }),
  instantTool("test_logging_tool", "Answers with one text block and logs nothing to the client.", {
    content: [{ type: "text", text: "Logging tool ran; no log level was requested, so no log was sent." }],
  }),
];

/** JSON Schema 2020-12 keywords a tool's input schema may carry; tools/list must keep every one. */
const address = z
  .object({ street: z.string().optional(), city: z.string().optional() })
  .meta({ id: "address", $anchor: "addressDef" });

export const jsonSchema2020Tool: FixtureTool = {
  name: "json_schema_2020_12_tool",
  description: "Tool with JSON Schema 2020-12 features",
  inputSchema: z
    .strictObject({
      name: z.string().optional(),
      address: address.optional(),
      contactMethod: z.enum(["phone", "email"]).optional(),
      phone: z.string().optional(),
      email: z.string().optional(),
    })
    .meta({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
      if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
      then: { required: ["phone"] },
      else: { required: ["email"] },
    }),
  synchronousWaitMs: 30_000,
  observe: (job) => ({
    status: "completed",
    rawStatus: "succeeded",
    result: { content: [{ type: "text", text: `Contact recorded: ${JSON.stringify(job.input)}` }] },
  }),
};
