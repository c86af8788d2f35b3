/**
 * import() of a module the command line's bundle does not hold: an optional adapter package, or a config's
 * own adapter module. The bundle is CommonJS run through `vm` with its compiled code cached
 * (start-bundle.ts), and code run that way has no import() unless Node runs with an experimental flag; so
 * the bundle leaves this module out and calls it, and specifiers resolve from here, next to the bundle in
 * dist/, as they would from the modules tsc wrote.
 */
export function importModule(specifier: string): Promise<unknown> {
  return import(specifier);
}
