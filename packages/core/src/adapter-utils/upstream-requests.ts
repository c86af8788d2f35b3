/**
 * How an adapter's HTTP layer tells the server about each request it sends upstream, for metrics and
 * traces, without depending on any telemetry library: it reports the request as it leaves
 * (`upstreamRequestStarted`), adds the headers it is given (a W3C `traceparent`), and reports the answer.
 * The server registers the observer when it records telemetry; until then every call is answered by an idle
 * record at the cost of one global lookup.
 *
 * Nothing here may carry a secret or an id: `urlTemplate` is the route with its ids as `{placeholders}`
 * ("/repos/{owner}/{repo}/actions/runs/{run_id}"), never the URL sent.
 */

export interface UpstreamRequestDescription {
  /** What the request is for, from a short fixed list per adapter: "get_run", "dispatch_workflow". */
  operation: string;
  /** The HTTP method, or the API's verb where it has no HTTP face ("DescribeJobs"). */
  method: string;
  /** The route with every id replaced by a placeholder; no host, no query values. */
  urlTemplate: string;
  /** How many times this request was sent before (0 for the first attempt). */
  resendCount?: number;
}

export interface UpstreamRequestOutcome {
  /** The HTTP status of the answer; absent when none came (a timeout, a refused connection). */
  status?: number;
  /** A short fixed name of the failure when there was one ("timeout", "connection", "429"). */
  errorType?: string;
  /**
   * What the answer said of the credential's rate budget, when the upstream tells it. `credential` names
   * the credential in the adapter's own words ("token", "app"), never its value.
   */
  rateLimit?: { remaining: number; limit?: number; credential?: string };
}

export interface UpstreamRequestRecord {
  /** Headers to send with the request (trace context); empty when nothing records it. */
  readonly headers: Readonly<Record<string, string>>;
  /** Report the answer (or the failure); a second call is ignored. */
  end(outcome: UpstreamRequestOutcome): void;
}

export interface UpstreamRequestObserver {
  begin(request: UpstreamRequestDescription): UpstreamRequestRecord;
}

/** One key per process, so that two copies of this package (a bundle beside an install) share the observer. */
const observerKey = Symbol.for("jobtasks.upstreamRequestObserver");
type ObserverHolder = { [observerKey]?: UpstreamRequestObserver | undefined };

const idle: UpstreamRequestRecord = Object.freeze({ headers: Object.freeze({}), end: () => undefined });

/** Report a request about to be sent upstream; end the record when its answer (or failure) is known. */
export function upstreamRequestStarted(request: UpstreamRequestDescription): UpstreamRequestRecord {
  const observer = (globalThis as ObserverHolder)[observerKey];
  return observer === undefined ? idle : observer.begin(request);
}

/** The server's side: install (or, with undefined, remove) the observer that records upstream requests. */
export function setUpstreamRequestObserver(observer: UpstreamRequestObserver | undefined): void {
  (globalThis as ObserverHolder)[observerKey] = observer;
}

/** Path segments kept as they are: plain lowercase words ("pipelines", "cancel") and API versions ("v4"). */
const routeWord = /^(?:[a-z][a-z_-]{0,31}|v\d{1,2})$/;

/**
 * A path as a URL template, for an HTTP layer that only has the path it sends: every segment that is not a
 * plain lowercase word becomes `{id}` ("/projects/group%2Fapp/pipelines/42" → "/projects/{id}/pipelines/{id}").
 * Crude on purpose: a name that happens to be a lowercase word stays, anything with a digit, an upper-case
 * letter, a dot or an escape goes. A layer that knows its routes' templates passes those instead.
 */
export function urlTemplateOf(pathname: string): string {
  return pathname
    .split("/")
    .map((segment) => (segment === "" || routeWord.test(segment) ? segment : "{id}"))
    .join("/");
}
