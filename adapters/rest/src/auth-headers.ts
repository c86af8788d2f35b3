import { AdapterConfigError } from "@jobtasks/core";
import type { AuthOptions } from "./rest-options.js";

type Environment = Readonly<Record<string, string | undefined>>;

/** Credential headers, and the values sent in them: the adapter declares these for the core to redact. */
export interface ResolvedAuth {
  headers: Record<string, string>;
  secrets: string[];
}

/** A secret given inline or by an environment variable's name; errors name `<option>` or `<option>Env`. */
export function readSecret(
  inline: string | undefined,
  variable: string | undefined,
  option: string,
  environment: Environment,
): string {
  if (inline !== undefined) return inline;
  if (variable !== undefined) {
    const value = environment[variable];
    if (value === undefined || value === "") {
      throw new AdapterConfigError(`${option}Env`, `environment variable ${variable} is not set`);
    }
    return value;
  }
  throw new AdapterConfigError(option, `give ${option} or ${option}Env (the name of an environment variable)`);
}

/** Read the secrets when the adapter is built, so a missing variable stops start-up, not the first call. */
export function resolveAuth(auth: AuthOptions, environment: Environment): ResolvedAuth {
  switch (auth.type) {
    case "none":
      return { headers: {}, secrets: [] };
    case "bearer": {
      const token = readSecret(auth.token, auth.tokenEnv, "auth.token", environment);
      return { headers: { authorization: `Bearer ${token}` }, secrets: [token] };
    }
    case "basic": {
      const username = readSecret(auth.username, auth.usernameEnv, "auth.username", environment);
      const password = readSecret(auth.password, auth.passwordEnv, "auth.password", environment);
      const encoded = Buffer.from(`${username}:${password}`).toString("base64");
      return { headers: { authorization: `Basic ${encoded}` }, secrets: [password, encoded] };
    }
    case "header": {
      const value = readSecret(auth.value, auth.valueEnv, "auth.value", environment);
      return { headers: { [auth.name.toLowerCase()]: value }, secrets: [value] };
    }
  }
}
