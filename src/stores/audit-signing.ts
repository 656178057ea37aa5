import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  KeyObject,
  sign,
  verify,
} from "node:crypto";
import { ConfigurationError } from "../errors/configuration-error.js";

/**
 * An Ed25519 key pair that signs an audit trail: the private key stays with
 * the writer, the public key is all an auditor needs.
 */
export interface AuditSigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** A new Ed25519 key pair for `auditSigningKey`, both halves as PEM text. */
export interface AuditSigningKeyPair {
  /** PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`): the writer's `auditSigningKey`, `SWITCHYARD_AUDIT_SIGNING_KEY`. Keep it secret. */
  privateKey: string;
  /** SPKI PEM (`-----BEGIN PUBLIC KEY-----`): what `switchyard audit verify --public-key` reads. Share it with auditors. */
  publicKey: string;
}

/**
 * Makes an Ed25519 key pair for signing an audit trail (the same as
 * `openssl genpkey -algorithm ed25519` and `openssl pkey -pubout`).
 *
 * @example
 * const { privateKey, publicKey } = generateAuditSigningKeyPair();
 * const auditLog = new JsonlAuditLog({ path: "audit.jsonl", auditSigningKey: privateKey });
 */
export function generateAuditSigningKeyPair(): AuditSigningKeyPair {
  const pair = generateKeyPairSync("ed25519");
  return {
    privateKey: pair.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKey: pair.publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

const makeOne =
  "make one with switchyard audit keygen, or openssl genpkey -algorithm ed25519 -out audit-signing-key.pem";

/**
 * Checks an `auditSigningKey` option: an Ed25519 private key as PKCS#8 PEM
 * text (line breaks may be written `\n`) or a `KeyObject`; undefined when
 * not given. The key itself never appears in an error.
 */
export function checkAuditSigningKey(key: unknown, owner: string): AuditSigningKey | undefined {
  if (key === undefined) return undefined;
  let privateKey: KeyObject;
  try {
    if (key instanceof KeyObject) privateKey = key;
    else if (typeof key === "string") privateKey = createPrivateKey(pemText(key));
    else throw new TypeError("not a string");
  } catch {
    throw new ConfigurationError(
      `${owner}'s auditSigningKey must be an Ed25519 private key as PKCS#8 PEM text (-----BEGIN PRIVATE KEY-----) or a KeyObject; ${makeOne}.`,
    );
  }
  if (privateKey.type !== "private" || privateKey.asymmetricKeyType !== "ed25519") {
    throw new ConfigurationError(
      `${owner}'s auditSigningKey must be an Ed25519 private key, not ${privateKey.type === "private" ? `a ${privateKey.asymmetricKeyType} key` : `a ${privateKey.type} key`}; ${makeOne}.`,
    );
  }
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

/**
 * Reads an Ed25519 public key an auditor was given: SPKI PEM text
 * (`-----BEGIN PUBLIC KEY-----`) or a `KeyObject`. `where` names its
 * source in the error (e.g. the file).
 */
export function parseAuditPublicKey(key: unknown, where: string): KeyObject {
  let publicKey: KeyObject;
  try {
    if (key instanceof KeyObject) publicKey = key;
    else if (typeof key === "string") {
      if (key.includes("PRIVATE KEY")) throw new TypeError("a private key");
      publicKey = createPublicKey(pemText(key));
    } else throw new TypeError("not a string");
  } catch {
    throw new ConfigurationError(
      `${where} is not an Ed25519 public key as SPKI PEM text (-----BEGIN PUBLIC KEY-----); give the public half of the signing key (openssl pkey -in audit-signing-key.pem -pubout), never the private key.`,
    );
  }
  if (publicKey.type !== "public" || publicKey.asymmetricKeyType !== "ed25519") {
    throw new ConfigurationError(
      `${where} is not an Ed25519 public key (it is ${publicKey.asymmetricKeyType ?? "another kind of"} key).`,
    );
  }
  return publicKey;
}

/** The public key as SPKI PEM text, as a bundle carries it. */
export function publicKeyPem(publicKey: KeyObject): string {
  return publicKey.export({ type: "spki", format: "pem" }).toString();
}

/** `sha256:` of the key's DER form: a short name an auditor can compare. */
export function publicKeyFingerprint(publicKey: KeyObject): string {
  const der = publicKey.export({ type: "spki", format: "der" });
  return `sha256:${createHash("sha256").update(der).digest("hex")}`;
}

/** `ed25519:` and the base64 signature of `text`. */
export function signText(text: string, privateKey: KeyObject): string {
  return `ed25519:${sign(null, Buffer.from(text, "utf8"), privateKey).toString("base64")}`;
}

/** Whether `signature` (as {@link signText} writes it) is `publicKey`'s over `text`. */
export function verifyText(text: string, signature: string, publicKey: KeyObject): boolean {
  if (!signature.startsWith("ed25519:")) return false;
  const bytes = Buffer.from(signature.slice("ed25519:".length), "base64");
  if (bytes.length !== 64) return false;
  try {
    return verify(null, Buffer.from(text, "utf8"), publicKey, bytes);
  } catch {
    return false;
  }
}

/** PEM text from an environment variable may carry its line breaks as `\n`. */
function pemText(text: string): string {
  return text.includes("\\n") ? text.replaceAll("\\n", "\n") : text;
}
