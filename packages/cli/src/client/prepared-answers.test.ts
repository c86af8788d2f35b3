import { describe, expect, it } from "vitest";
import { readElicitationForm } from "./elicitation-form.js";
import { parsePreparedAnswers, resolvePreparedAnswer } from "./prepared-answers.js";

// The demo's approval form, as the server sends it.
const approval = readElicitationForm({
  mode: "form",
  message: "Deploy?",
  requestedSchema: {
    type: "object",
    properties: {
      approve: { type: "boolean", title: "Approve" },
      comment: { type: "string", maxLength: 10 },
      region: { type: "string", enum: ["eu", "us"], enumNames: ["Europe", "Americas"] },
      replicas: { type: "integer", minimum: 1, maximum: 5 },
    },
    required: ["approve"],
  },
});

describe("answers prepared on the command line", () => {
  it("reads a form's fields by type, enums with their labels", () => {
    expect(approval.fields.map((field) => [field.name, field.kind, field.required])).toEqual([
      ["approve", "boolean", true],
      ["comment", "string", false],
      ["region", "choice", false],
      ["replicas", "integer", false],
    ]);
    expect(approval.fields[2]!.choices).toEqual([
      { value: "eu", label: "Europe" },
      { value: "us", label: "Americas" },
    ]);
  });

  it("fills any form from field=value, typed by the schema", () => {
    const answers = parsePreparedAnswers(["approve=yes", "replicas=3", "region=eu", "comment=ok"], undefined);
    expect(resolvePreparedAnswer(answers, "appr_1", approval)).toEqual({
      kind: "answered",
      result: { action: "accept", content: { approve: true, comment: "ok", region: "eu", replicas: 3 } },
    });
  });

  it("keeps key.field=value for that input request only; a keyed field the form lacks is a mistake", () => {
    const answers = parsePreparedAnswers(["appr_1.approve=false"], undefined);
    expect(resolvePreparedAnswer(answers, "appr_1", approval)).toMatchObject({
      kind: "answered",
      result: { content: { approve: false } },
    });
    expect(resolvePreparedAnswer(answers, "appr_2", approval)).toMatchObject({ kind: "incomplete", prepared: false });
    expect(() =>
      resolvePreparedAnswer(parsePreparedAnswers(["appr_1.aprove=true"], undefined), "appr_1", approval),
    ).toThrow(/no field "aprove" \(fields: approve, comment, region, replicas\)/);
  });

  it("takes --answers JSON, with typed values and actions", () => {
    expect(
      resolvePreparedAnswer(parsePreparedAnswers([], '{"*": {"approve": true, "replicas": 2}}'), "k", approval),
    ).toMatchObject({ result: { action: "accept", content: { approve: true, replicas: 2 } } });
    expect(resolvePreparedAnswer(parsePreparedAnswers([], '{"k": {"action": "decline"}}'), "k", approval)).toEqual({
      kind: "answered",
      result: { action: "decline" },
    });
    expect(
      resolvePreparedAnswer(
        parsePreparedAnswers([], '{"*": {"action": "accept", "content": {"approve": true}}}'),
        "k",
        approval,
      ),
    ).toMatchObject({ result: { action: "accept", content: { approve: true } } });
    expect(() => parsePreparedAnswers([], "{nope")).toThrow(/--answers: not JSON/);
    expect(() => parsePreparedAnswers(["approve"], undefined)).toThrow(/expected \[key\.\]field=value/);
  });

  it("refuses a value the schema does not allow, naming the field and what it takes", () => {
    const resolve = (flag: string) =>
      resolvePreparedAnswer(parsePreparedAnswers(["approve=true", flag], undefined), "k", approval);
    expect(() => resolve("region=asia")).toThrow('region: expected one of eu, us, got "asia"');
    expect(() => resolve("replicas=9")).toThrow("replicas: must be at most 5");
    expect(() => resolve("replicas=1.5")).toThrow('replicas: expected an integer, got "1.5"');
    expect(() => resolve("comment=far too long a comment")).toThrow("comment: must be at most 10 characters");
    expect(() => resolvePreparedAnswer(parsePreparedAnswers(["approve=perhaps"], undefined), "k", approval)).toThrow(
      'approve: expected true or false, got "perhaps"',
    );
  });

  it("is incomplete while a required field is missing, keeping what it has for the prompt", () => {
    expect(resolvePreparedAnswer(parsePreparedAnswers(["comment=hi"], undefined), "k", approval)).toMatchObject({
      kind: "incomplete",
      prepared: true,
      content: { comment: "hi" },
      missing: [{ name: "approve" }],
    });
    expect(resolvePreparedAnswer(parsePreparedAnswers([], undefined), "k", approval)).toMatchObject({
      kind: "incomplete",
      prepared: false,
    });
  });
});
