import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";
import { ConfigError, JobtasksError, type JsonValue } from "@jobtasks/core";

/** A job reference too large to travel as a task id (the id also goes in an HTTP header). */
export class TaskIdTooLongError extends JobtasksError {}

/**
 * Task ids are the upstream job reference, sealed with AES-256-GCM under a key derived from the server's
 * secret. Nothing about a task is stored locally: whoever holds the secret can open the id and ask the
 * upstream. The owning principal is bound as additional authenticated data, so an id opened by another
 * caller fails exactly like a forged one, and the principal costs no bytes in the id.
 *
 * Format: `jt1.<keyId>.<base64url(nonce ‖ ciphertext ‖ tag)>`. The key id lets old keys keep opening
 * the ids they sealed after a rotation.
 */

/** What a task id holds once opened. */
export interface TaskReference {
  /** Name of the adapter instance in the server's configuration. */
  instance: string;
  /** Tool that created the task. */
  tool: string;
  /** The adapter's own job reference. */
  ref: JsonValue;
  /** Creation time, milliseconds since the epoch. */
  createdAt: number;
}

const formatVersion = "jt1";
const nonceBytes = 12;
const tagBytes = 16;
/**
 * The longest task id sealed or opened. Real ones are a few hundred characters; ids also travel in the
 * Mcp-Name HTTP header, so a bound keeps them far from header limits.
 */
export const maximumTaskIdLength = 2048;
export const minimumSecretLength = 32;

interface SealingKey {
  keyId: string;
  key: Buffer;
}

function deriveKey(secret: string): SealingKey {
  const key = Buffer.from(hkdfSync("sha256", secret, "jobtasks", "task-id/v1", 32));
  // The key id is a MAC of a constant: it names the key without revealing anything about the secret.
  const keyId = createHmac("sha256", key).update("key-id").digest().subarray(0, 6).toString("base64url");
  return { keyId, key };
}

function additionalData(keyId: string, principal: string): Buffer {
  return Buffer.from(`${formatVersion}.${keyId}\u0000${principal}`, "utf8");
}

export interface TaskIdSealerOptions {
  /** The secret new task ids are sealed with. At least 32 characters. */
  secret: string;
  /** Earlier secrets, still accepted when opening ids (key rotation). */
  previousSecrets?: readonly string[];
  /** Where the secret came from, for error messages (an option or environment variable name). */
  secretSource?: string;
}

export class TaskIdSealer {
  readonly #current: SealingKey;
  readonly #byKeyId: Map<string, SealingKey>;

  constructor(options: TaskIdSealerOptions) {
    const source = options.secretSource ?? "secret";
    const secrets = [options.secret, ...(options.previousSecrets ?? [])];
    secrets.forEach((secret, index) => {
      if (typeof secret !== "string" || secret.length < minimumSecretLength) {
        const where = index === 0 ? source : `${source} (previous secret #${index})`;
        throw new ConfigError(where, `must be at least ${minimumSecretLength} characters long`);
      }
    });
    const keys = secrets.map(deriveKey);
    this.#current = keys[0]!;
    this.#byKeyId = new Map(keys.map((key) => [key.keyId, key]));
  }

  /** The key id new task ids carry; shown at start-up so operators can tell which secret is active. */
  get currentKeyId(): string {
    return this.#current.keyId;
  }

  seal(reference: TaskReference, principal: string): string {
    const { keyId, key } = this.#current;
    const nonce = randomBytes(nonceBytes);
    const cipher = createCipheriv("aes-256-gcm", key, nonce);
    cipher.setAAD(additionalData(keyId, principal));
    // A positional array: the wire holds no member names, so names in code can change without a new format.
    const plaintext = JSON.stringify([reference.instance, reference.tool, reference.createdAt, reference.ref]);
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    const sealed = Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]);
    const taskId = `${formatVersion}.${keyId}.${sealed.toString("base64url")}`;
    if (taskId.length > maximumTaskIdLength) {
      throw new TaskIdTooLongError(
        `the job reference is too large for a task id (${taskId.length} characters, at most ${maximumTaskIdLength}); the adapter should keep its references small`,
      );
    }
    return taskId;
  }

  /**
   * Open a task id for a principal. Returns undefined for anything that is not an id this server sealed
   * for this principal: forged, edited, truncated, another caller's, or sealed with an unknown key. The
   * caller answers all of these the same way, so that nothing about other tasks leaks.
   */
  open(taskId: string, principal: string): TaskReference | undefined {
    if (typeof taskId !== "string" || taskId.length > maximumTaskIdLength) return undefined;
    const parts = taskId.split(".");
    if (parts.length !== 3 || parts[0] !== formatVersion) return undefined;
    const key = this.#byKeyId.get(parts[1]!);
    if (!key) return undefined;
    const sealed = Buffer.from(parts[2]!, "base64url");
    // Only the canonical spelling opens: base64 can hide spare bits in the last character, and a task id
    // should have exactly one written form.
    if (sealed.length < nonceBytes + tagBytes + 2 || sealed.toString("base64url") !== parts[2]) return undefined;
    try {
      const decipher = createDecipheriv("aes-256-gcm", key.key, sealed.subarray(0, nonceBytes));
      decipher.setAAD(additionalData(key.keyId, principal));
      decipher.setAuthTag(sealed.subarray(sealed.length - tagBytes));
      const plaintext = Buffer.concat([
        decipher.update(sealed.subarray(nonceBytes, sealed.length - tagBytes)),
        decipher.final(),
      ]).toString("utf8");
      return parseReference(JSON.parse(plaintext));
    } catch {
      return undefined;
    }
  }
}

function parseReference(value: unknown): TaskReference | undefined {
  if (!Array.isArray(value) || value.length !== 4) return undefined;
  const [instance, tool, createdAt, ref] = value as unknown[];
  if (typeof instance !== "string" || typeof tool !== "string" || typeof createdAt !== "number") return undefined;
  return { instance, tool, createdAt, ref: ref as JsonValue };
}
