import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A small Kubernetes API server on 127.0.0.1 for the tests and the benchmark: the batch/v1 Jobs and core/v1
 * pods, pod logs and events that the adapter uses, with real watch streams (resourceVersions, replay from a
 * version, bookmarks, 410 Gone for a compacted version, timeoutSeconds), bearer-token checks, and levers to
 * forbid a verb, fail a namespace, drop every watch or compact the history. @kubernetes/client-node talks
 * to it unchanged, through a kubeconfig file it writes.
 */

type Json = Record<string, any>;

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  watch: boolean;
  body?: unknown;
}

interface Watcher {
  namespace: string;
  response: ServerResponse;
  bookmarks: boolean;
  timers: NodeJS.Timeout[];
}

export const fakeToken = "fake-kubernetes-token-MUST-NOT-LEAK-0123";

export class FakeKubernetesApi {
  readonly requests: RecordedRequest[] = [];
  readonly jobs = new Map<string, Map<string, Json>>();
  readonly pods = new Map<string, Json[]>();
  readonly events = new Map<string, Json[]>();
  readonly logs = new Map<string, string>();
  /** "namespace verb resource" entries answered 403. */
  readonly forbidden = new Set<string>();
  /** Namespaces whose every request is answered 503. */
  readonly failingNamespaces = new Set<string>();
  /** Answer every request 401. */
  rejectCredentials = false;
  /** How a watch from a compacted version is refused: an ERROR event in a 200 stream (as the API does), or HTTP 410. */
  goneAs: "event" | "status" = "event";
  bookmarkIntervalMs = 1000;
  /** Create the next Job, then break the connection before answering: a create whose answer is lost. */
  loseNextCreateAnswer = false;
  /** Delay before a response is written, to measure what a slow API costs. */
  answerDelayMs = 0;
  #resourceVersion = 1000;
  #compactedBefore = 0;
  readonly #history: Array<{ version: number; namespace: string; type: string; object: Json }> = [];
  readonly #watchers = new Set<Watcher>();
  readonly #server = createServer((request, response) => void this.#handle(request, response));
  #directory = "";
  url = "";
  kubeconfigPath = "";

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    const { port } = this.#server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    this.#directory = mkdtempSync(join(tmpdir(), "fake-kubernetes-"));
    this.kubeconfigPath = join(this.#directory, "kubeconfig");
    const cluster = { server: this.url, "insecure-skip-tls-verify": true };
    writeFileSync(
      this.kubeconfigPath,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "fake", cluster }],
        users: [
          { name: "tester", user: { token: fakeToken } },
          { name: "stranger", user: { token: "another-token-the-fake-refuses" } },
        ],
        contexts: [
          { name: "fake", context: { cluster: "fake", user: "tester" } },
          { name: "stranger", context: { cluster: "fake", user: "stranger" } },
        ],
        "current-context": "fake",
      }),
    );
    return this;
  }

  async close(): Promise<void> {
    this.dropWatches();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    if (this.#directory) rmSync(this.#directory, { recursive: true, force: true });
  }

  /** Requests that are not watches, optionally only those matching. */
  count(filter: (request: RecordedRequest) => boolean = () => true): number {
    return this.requests.filter(filter).length;
  }

  get openWatches(): number {
    return this.#watchers.size;
  }

  /** Create a Job as the API would (uid, resourceVersion, timestamps), and tell the watches. */
  addJob(namespace: string, job: Json): Json {
    const stored = structuredClone(job);
    stored.apiVersion = "batch/v1";
    stored.kind = "Job";
    stored.metadata = { ...stored.metadata, namespace };
    if (!stored.metadata.name) stored.metadata.name = `${stored.metadata.generateName ?? "job-"}${randomSuffix()}`;
    stored.metadata.uid ??= randomUUID();
    stored.metadata.creationTimestamp ??= new Date().toISOString();
    stored.status ??= {};
    this.#namespaceJobs(namespace).set(stored.metadata.name, stored);
    this.#record(namespace, "ADDED", stored);
    return structuredClone(stored);
  }

  /** Change a Job (its status, say) and tell the watches. */
  updateJob(namespace: string, name: string, change: (job: Json) => void): Json {
    const job = this.#namespaceJobs(namespace).get(name);
    if (!job) throw new Error(`the fake has no Job ${namespace}/${name}`);
    change(job);
    this.#record(namespace, "MODIFIED", job);
    return structuredClone(job);
  }

  /** Delete a Job as its TTL controller would, and tell the watches. */
  removeJob(namespace: string, name: string): void {
    const job = this.#namespaceJobs(namespace).get(name);
    if (!job) return;
    this.#namespaceJobs(namespace).delete(name);
    this.pods.set(
      namespace,
      (this.pods.get(namespace) ?? []).filter(
        (pod) => pod.metadata.labels?.["batch.kubernetes.io/controller-uid"] !== job.metadata.uid,
      ),
    );
    this.#record(namespace, "DELETED", job);
  }

  job(namespace: string, name: string): Json | undefined {
    return this.#namespaceJobs(namespace).get(name);
  }

  /** A pod of a Job (its labels are set from the Job), with a log. */
  addPod(namespace: string, jobName: string, pod: Json, log?: string): Json {
    const job = this.job(namespace, jobName);
    if (!job) throw new Error(`the fake has no Job ${namespace}/${jobName}`);
    const name = pod.metadata?.name ?? `${jobName}-${randomSuffix()}`;
    const stored = {
      apiVersion: "v1",
      kind: "Pod",
      ...pod,
      metadata: {
        creationTimestamp: new Date().toISOString(),
        ...pod.metadata,
        name,
        namespace,
        labels: {
          ...pod.metadata?.labels,
          "batch.kubernetes.io/job-name": jobName,
          "batch.kubernetes.io/controller-uid": job.metadata.uid,
        },
      },
      spec: pod.spec ?? { containers: [{ name: "job", image: "example.com/job:1" }] },
    };
    this.pods.set(namespace, [...(this.pods.get(namespace) ?? []), stored]);
    if (log !== undefined) this.logs.set(`${namespace}/${name}`, log);
    return stored;
  }

  addEvent(namespace: string, event: Json): void {
    this.events.set(namespace, [...(this.events.get(namespace) ?? []), event]);
  }

  /** Close every watch stream at once, as a load balancer or an API server restart would. */
  dropWatches(): void {
    for (const watcher of this.#watchers) {
      for (const timer of watcher.timers) clearInterval(timer);
      watcher.response.destroy();
    }
    this.#watchers.clear();
  }

  /** Forget the history: a watch resumed from any version seen so far is answered 410 Gone. */
  compact(): void {
    this.#compactedBefore = this.#resourceVersion + 1;
    this.#history.length = 0;
  }

  /** Tell every open watch that its version is too old (an ERROR event with code 410), and close it. */
  expireWatches(): void {
    this.compact();
    for (const watcher of this.#watchers) {
      this.#write(watcher.response, { type: "ERROR", object: statusBody(410, "Expired", "too old resource version") });
      this.#endWatch(watcher);
    }
  }

  #namespaceJobs(namespace: string): Map<string, Json> {
    let jobs = this.jobs.get(namespace);
    if (!jobs) this.jobs.set(namespace, (jobs = new Map()));
    return jobs;
  }

  #record(namespace: string, type: string, job: Json): void {
    this.#resourceVersion += 1;
    job.metadata.resourceVersion = String(this.#resourceVersion);
    const object = structuredClone(job);
    this.#history.push({ version: this.#resourceVersion, namespace, type, object });
    for (const watcher of this.#watchers)
      if (watcher.namespace === namespace) this.#write(watcher.response, { type, object });
  }

  #write(response: ServerResponse, event: Json): void {
    if (!response.destroyed) response.write(`${JSON.stringify(event)}\n`);
  }

  #endWatch(watcher: Watcher): void {
    for (const timer of watcher.timers) clearInterval(timer);
    this.#watchers.delete(watcher);
    watcher.response.end();
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://fake");
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const body = text ? JSON.parse(text) : undefined;
    const watch = url.searchParams.get("watch") === "true" || url.searchParams.get("watch") === "1";
    const method = request.method ?? "GET";
    this.requests.push({ method, path: url.pathname, query: url.searchParams, watch, body });
    if (this.answerDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.answerDelayMs));
    const send = (status: number, payload: unknown, type = "application/json") => {
      response.writeHead(status, { "content-type": type });
      response.end(typeof payload === "string" ? payload : JSON.stringify(payload));
    };
    if (this.rejectCredentials || request.headers.authorization !== `Bearer ${fakeToken}`)
      return send(401, statusBody(401, "Unauthorized", "Unauthorized"));
    const jobsPath = /^\/apis\/batch\/v1\/namespaces\/([^/]+)\/jobs(?:\/([^/]+))?$/.exec(url.pathname);
    const podsPath = /^\/api\/v1\/namespaces\/([^/]+)\/pods(?:\/([^/]+)\/log)?$/.exec(url.pathname);
    const eventsPath = /^\/api\/v1\/namespaces\/([^/]+)\/events$/.exec(url.pathname);
    const namespace = decodeURIComponent((jobsPath ?? podsPath ?? eventsPath)?.[1] ?? "");
    if (!namespace) return send(404, statusBody(404, "NotFound", "the server could not find the requested resource"));
    if (this.failingNamespaces.has(namespace)) return send(503, statusBody(503, "ServiceUnavailable", "etcd is down"));
    const resource = jobsPath ? "jobs" : podsPath?.[2] ? "pods/log" : podsPath ? "pods" : "events";
    const name = jobsPath?.[2] ? decodeURIComponent(jobsPath[2]) : undefined;
    const verb = verbOf(method, watch, name !== undefined || resource === "pods/log");
    if (this.forbidden.has(`${namespace} ${verb} ${resource}`))
      return send(
        403,
        statusBody(403, "Forbidden", `${resource} is forbidden: cannot ${verb} in the namespace "${namespace}"`),
      );
    if (jobsPath && watch) return this.#watch(namespace, url.searchParams, response);
    if (jobsPath && !name && method === "GET") {
      const selector = url.searchParams.get("labelSelector");
      const items = [...this.#namespaceJobs(namespace).values()].filter((job) => matches(job, selector));
      return send(200, {
        apiVersion: "batch/v1",
        kind: "JobList",
        metadata: { resourceVersion: String(this.#resourceVersion) },
        items,
      });
    }
    if (jobsPath && !name && method === "POST") {
      const created = this.addJob(namespace, body as Json);
      if (this.loseNextCreateAnswer) {
        this.loseNextCreateAnswer = false;
        response.socket?.destroy();
        return;
      }
      return send(201, created);
    }
    if (jobsPath && name) {
      const job = this.job(namespace, name);
      if (!job) return send(404, statusBody(404, "NotFound", `jobs.batch "${name}" not found`));
      if (method === "GET") return send(200, job);
      if (method === "DELETE") {
        const uid = (body as Json | undefined)?.preconditions?.uid;
        if (uid !== undefined && uid !== job.metadata.uid)
          return send(409, statusBody(409, "Conflict", "Precondition failed: UID in precondition"));
        this.removeJob(namespace, name);
        return send(200, { kind: "Status", apiVersion: "v1", status: "Success" });
      }
      if (method === "PATCH") {
        const copy = structuredClone(job);
        for (const operation of body as Json[]) {
          if (operation.op === "test") {
            if (valueAt(copy, operation.path) !== operation.value)
              return send(422, statusBody(422, "Invalid", "the test operation failed"));
          } else if (operation.op === "add" || operation.op === "replace") {
            try {
              setAt(copy, operation.path, operation.value);
            } catch {
              return send(422, statusBody(422, "Invalid", `cannot ${operation.op} ${operation.path}`));
            }
          }
        }
        const updated = this.updateJob(namespace, name, (stored) => Object.assign(stored, copy));
        return send(200, updated);
      }
    }
    if (podsPath && !podsPath[2]) {
      const selector = url.searchParams.get("labelSelector");
      const items = (this.pods.get(namespace) ?? []).filter((pod) => matches(pod, selector));
      return send(200, { apiVersion: "v1", kind: "PodList", metadata: { resourceVersion: "1" }, items });
    }
    if (podsPath?.[2]) {
      const log = this.logs.get(`${namespace}/${decodeURIComponent(podsPath[2])}`);
      if (log === undefined) return send(404, statusBody(404, "NotFound", "no such pod"));
      const tail = Number(url.searchParams.get("tailLines") ?? "0");
      const lines = log.split("\n");
      if (lines.at(-1) === "") lines.pop();
      let text = (tail > 0 ? lines.slice(-tail) : lines).map((line) => `${line}\n`).join("");
      const limit = Number(url.searchParams.get("limitBytes") ?? "0");
      if (limit > 0) text = Buffer.from(text).subarray(0, limit).toString("utf8");
      return send(200, text, "text/plain");
    }
    if (eventsPath) {
      const uid = /involvedObject\.uid=([^,]+)/.exec(url.searchParams.get("fieldSelector") ?? "")?.[1];
      const items = (this.events.get(namespace) ?? []).filter((event) => !uid || event.involvedObject?.uid === uid);
      return send(200, { apiVersion: "v1", kind: "EventList", metadata: { resourceVersion: "1" }, items });
    }
    return send(405, statusBody(405, "MethodNotAllowed", "not served by the fake"));
  }

  #watch(namespace: string, query: URLSearchParams, response: ServerResponse): void {
    const from = Number(query.get("resourceVersion") || "0");
    if (from > 0 && from < this.#compactedBefore - 1) {
      if (this.goneAs === "status") {
        response.writeHead(410, { "content-type": "application/json" });
        response.end(JSON.stringify(statusBody(410, "Expired", "too old resource version")));
        return;
      }
      response.writeHead(200, { "content-type": "application/json" });
      this.#write(response, { type: "ERROR", object: statusBody(410, "Expired", "too old resource version") });
      response.end();
      return;
    }
    response.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
    response.flushHeaders();
    for (const entry of this.#history)
      if (entry.namespace === namespace && entry.version > from)
        this.#write(response, { type: entry.type, object: entry.object });
    const watcher: Watcher = {
      namespace,
      response,
      bookmarks: query.get("allowWatchBookmarks") === "true",
      timers: [],
    };
    if (watcher.bookmarks)
      watcher.timers.push(
        setInterval(
          () =>
            this.#write(response, {
              type: "BOOKMARK",
              object: {
                kind: "Job",
                apiVersion: "batch/v1",
                metadata: { resourceVersion: String(this.#resourceVersion) },
              },
            }),
          this.bookmarkIntervalMs,
        ),
      );
    const timeoutSeconds = Number(query.get("timeoutSeconds") ?? "0");
    if (timeoutSeconds > 0) watcher.timers.push(setTimeout(() => this.#endWatch(watcher), timeoutSeconds * 1000));
    response.on("close", () => {
      for (const timer of watcher.timers) clearInterval(timer);
      this.#watchers.delete(watcher);
    });
    this.#watchers.add(watcher);
  }
}

function verbOf(method: string, watch: boolean, named: boolean): string {
  if (watch) return "watch";
  if (method === "POST") return "create";
  if (method === "DELETE") return "delete";
  if (method === "PATCH") return "patch";
  return named ? "get" : "list";
}

function statusBody(code: number, reason: string, message: string): Json {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
}

function matches(object: Json, selector: string | null): boolean {
  if (!selector) return true;
  return selector.split(",").every((term) => {
    const [key, value] = term.split("=");
    return object.metadata?.labels?.[key!] === value;
  });
}

function segmentsOf(path: string): string[] {
  return path
    .split("/")
    .slice(1)
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function valueAt(object: Json, path: string): unknown {
  return segmentsOf(path).reduce<any>((value, segment) => value?.[segment], object);
}

function setAt(object: Json, path: string, value: unknown): void {
  const segments = segmentsOf(path);
  const last = segments.pop()!;
  const parent = segments.reduce<any>((current, segment) => current?.[segment], object);
  if (parent === undefined || parent === null) throw new Error(`no parent for ${path}`);
  parent[last] = value;
}

function randomSuffix(): string {
  return Math.random().toString(36).slice(2, 7).padEnd(5, "x");
}
