import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { AdapterConfigError } from "@jobtasks/core";

type Environment = Readonly<Record<string, string | undefined>>;

/** The `region` set by a profile's section of a shared AWS config or credentials file, if any. */
function regionInIniFile(path: string, sectionNames: ReadonlySet<string>): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined; // no file: the SDK finds nothing there either
  }
  let inSection = false;
  let region: string | undefined;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.replace(/\s[#;].*$/, "").trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[\s*(.+?)\s*\]$/.exec(line);
    if (header) {
      inSection = sectionNames.has((header[1] as string).replace(/\s+/g, " "));
      continue;
    }
    const setting = /^region\s*=\s*(\S+)/.exec(line);
    if (inSection && setting) region = setting[1];
  }
  return region;
}

/** The shape of an AWS Region name, as the `region` option checks it. */
export const awsRegionPattern = /^[a-z]{2}(-[a-z]+)+-\d+$/;

/**
 * The Region the clients this adapter builds will use, and where it comes from: the `region` option,
 * AWS_REGION, AWS_DEFAULT_REGION (passed on by create-aws-clients.ts), or the selected profile in the
 * shared config or credentials file. Undefined when none has one: the SDK then asks the EC2 instance
 * metadata service, which only a call can do, and a Region missing there too is reported by that call.
 */
function configuredRegion(
  options: { region?: string | undefined; profile?: string | undefined },
  environment: Environment,
): { region: string; source: string } | undefined {
  if (options.region) return { region: options.region, source: "the region option" };
  if (environment.AWS_REGION) return { region: environment.AWS_REGION, source: "the AWS_REGION environment variable" };
  if (environment.AWS_DEFAULT_REGION)
    return { region: environment.AWS_DEFAULT_REGION, source: "the AWS_DEFAULT_REGION environment variable" };
  const profile = options.profile ?? environment.AWS_PROFILE ?? "default";
  const home = environment.HOME ?? environment.USERPROFILE ?? homedir();
  const configPath = environment.AWS_CONFIG_FILE ?? join(home, ".aws", "config");
  const credentialsPath = environment.AWS_SHARED_CREDENTIALS_FILE ?? join(home, ".aws", "credentials");
  const configSections = new Set(profile === "default" ? ["default", "profile default"] : [`profile ${profile}`]);
  const fromCredentials = regionInIniFile(credentialsPath, new Set([profile]));
  if (fromCredentials) return { region: fromCredentials, source: `profile "${profile}" in ${credentialsPath}` };
  const fromConfig = regionInIniFile(configPath, configSections);
  if (fromConfig) return { region: fromConfig, source: `profile "${profile}" in ${configPath}` };
  return undefined;
}

/**
 * Refuse a configured Region the SDK would not accept ("eu-west-1 " with a stray space from a .env file):
 * the SDK only finds out when a call is made, and then every call fails before anything is sent. The value
 * is not repeated: the source is named instead. No Region at all is not refused (see configuredRegion).
 */
export function assertConfiguredRegionValid(
  options: { region?: string | undefined; profile?: string | undefined },
  environment: Environment,
): void {
  const configured = configuredRegion(options, environment);
  if (!configured || awsRegionPattern.test(configured.region)) return;
  throw new AdapterConfigError(
    "region",
    `the Region set by ${configured.source} is not an AWS Region such as eu-west-1 (look for spaces, quotes or typos)`,
  );
}
