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

/**
 * Where the SDK's default Region chain would find a Region for the clients this adapter builds: the
 * `region` option, AWS_REGION, AWS_DEFAULT_REGION (passed on by create-aws-clients.ts), or the selected
 * profile in the shared config or credentials file. The SDK only finds out when the first call is made,
 * and then reports it as an error without an HTTP status; checking here turns it into a config error that
 * names what is missing. Throws AdapterConfigError when no source has a Region.
 */
export function assertRegionResolvable(options: { region?: string | undefined; profile?: string | undefined }, environment: Environment): void {
  if (options.region || environment.AWS_REGION || environment.AWS_DEFAULT_REGION) return;
  const profile = options.profile ?? environment.AWS_PROFILE ?? "default";
  const home = environment.HOME ?? environment.USERPROFILE ?? homedir();
  const configPath = environment.AWS_CONFIG_FILE ?? join(home, ".aws", "config");
  const credentialsPath = environment.AWS_SHARED_CREDENTIALS_FILE ?? join(home, ".aws", "credentials");
  const configSections = new Set(profile === "default" ? ["default", "profile default"] : [`profile ${profile}`]);
  const fromProfile = regionInIniFile(credentialsPath, new Set([profile])) ?? regionInIniFile(configPath, configSections);
  if (fromProfile) return;
  throw new AdapterConfigError(
    "region",
    `no AWS Region is configured: set the region option, the AWS_REGION or AWS_DEFAULT_REGION environment variable, ` +
      `or a region in the profile (profile "${profile}" in ${configPath} sets no region; the profile comes from the ` +
      "profile option or AWS_PROFILE)",
  );
}
