/**
 * Under Node 20 the AWS SDK warns, on the first client it builds, that its releases after early January
 * 2027 will need Node 22. jobtasks pins an SDK release that runs on Node 20, and says itself, once at
 * start-up, that Node 20 is out of support (unsupported-node-notice.ts), so the SDK's notice tells its
 * user nothing more. A value the user set (for instance "false", to see the notice) is kept.
 */
export function quietAwsNodeVersionNotice(environment: NodeJS.ProcessEnv = process.env): void {
  environment["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] ??= "true";
}
