/**
 * Whether `value` is an object with members, as JSON's `{…}` is once parsed: not null and not an array. Its
 * prototype is not looked at, so a class instance counts too; the values checked here come from JSON, YAML
 * or a configuration object.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
