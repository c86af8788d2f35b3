import { ConfigError } from "@jobtasks/core";

const reference = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replace `${NAME}` and `${NAME:-default}` in every string of a parsed config (`$$` is a literal `$`).
 * Done after parsing, on string values only, so a variable's value can never change the config's structure.
 */
export function interpolateEnvironment(
  value: unknown,
  environment: Readonly<Record<string, string | undefined>>,
  path = "",
): unknown {
  if (typeof value === "string") {
    return value.replace(reference, (match, name: string | undefined, fallback: string | undefined) => {
      if (match === "$$") return "$";
      const found = environment[name!];
      if (found !== undefined && found !== "") return found;
      if (fallback !== undefined) return fallback;
      throw new ConfigError(
        path || "(root)",
        `environment variable ${name} is not set (write \${${name}:-default} for a default)`,
      );
    });
  }
  if (Array.isArray(value))
    return value.map((item, index) => interpolateEnvironment(item, environment, `${path}[${index}]`));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        interpolateEnvironment(item, environment, path ? `${path}.${key}` : key),
      ]),
    );
  }
  return value;
}
