import type { KeyObject } from "node:crypto";
import type { ApprovalAuditRecord } from "../agent/approval/approval-audit-record.js";
import type { AuditLogHead, AuditLogVerification } from "../agent/approval/audit-log.js";
import {
  AuditKeyRequiredError,
  type AuditLogEntry,
  auditLogGenesis,
  entryHash,
  entrySignatureHolds,
  headMacHolds,
  headSignatureHolds,
  parseAuditEntry,
  parseAuditHead,
  sameText,
} from "./audit-chain.js";
import { publicKeyFingerprint } from "./audit-signing.js";

/** What a chain is checked with. */
export interface AuditChainCheck {
  /** The HMAC key, for keyed entries and heads. */
  key: string | undefined;
  /** The Ed25519 public key, for signed entries and heads: with it, every head and the last entry must be signed. */
  publicKey: KeyObject | undefined;
  /** The log, for messages. */
  where: string;
  /** Problems found before the chain (e.g. a torn last line). */
  problems?: string[];
  /** A missing head is a problem even without a key (a log that always kept one). */
  headRequired?: boolean;
  /** A head kept elsewhere (an anchor): the trail must still hold what it names. */
  anchor?: unknown;
}

const publicKeyNeeded =
  "verifying it needs its public key (--public-key FILE for switchyard audit verify, or the publicKey option)";

/**
 * Checks a chain of stored entries (one JSON text each) against its head
 * (`undefined` when none was kept). A keyed entry or head without the key,
 * or a signed one without the public key, cannot be checked: that throws
 * {@link AuditKeyRequiredError}. With a key or a public key, the last entry
 * and the head must carry it (entries written before a key was set may
 * lead the chain: the first keyed entry covers their hashes), and an empty
 * trail must have a head of 0 entries that carries it: a trail emptied
 * with its head removed does not verify. With `anchor`, the trail must
 * still hold the entries an earlier head kept elsewhere names.
 */
export function verifyAuditChain(
  texts: readonly string[],
  storedHead: unknown,
  options: AuditChainCheck,
): AuditLogVerification {
  const { key, publicKey, where } = options;
  const authenticated = key !== undefined || publicKey !== undefined;
  const problems = [...(options.problems ?? [])];
  const notes: string[] = [];
  const records: ApprovalAuditRecord[] = [];
  /** Each entry's hash, by number, for an anchored head. */
  const hashes: string[] = [auditLogGenesis];
  let prev = auditLogGenesis;
  let unauthenticatedLeading = 0;
  let seenAuthenticated = false;
  let lastKind: "signed" | "keyed" | "unkeyed" | undefined;
  /** The last entry, when it could be read. */
  let last: AuditLogEntry | undefined;
  texts.forEach((text, index) => {
    const number = index + 1;
    const entry = parseAuditEntry(text);
    if ("problem" in entry) {
      problems.push(`entry ${number}: ${entry.problem}`);
      prev = "";
      hashes.push("");
      lastKind = undefined;
      last = undefined;
      return;
    }
    last = entry;
    records.push(entry.record);
    const keyed = entry.hash.startsWith("hmac-sha256:");
    const signed = entry.signature !== undefined;
    if (keyed && key === undefined) {
      throw new AuditKeyRequiredError(
        `${where} is keyed (its hashes are HMAC-SHA256): verifying it needs its key (the auditKey option, or SWITCHYARD_AUDIT_KEY for switchyard audit).`,
      );
    }
    if (signed && publicKey === undefined) {
      throw new AuditKeyRequiredError(`${where} is signed (Ed25519): ${publicKeyNeeded}.`);
    }
    if (entry.seq !== number)
      problems.push(
        `entry ${number}: numbered ${entry.seq}, expected ${number} (an entry was removed or moved)`,
      );
    if (entry.prev !== prev)
      problems.push(
        `entry ${number}: does not follow the entry before (its prev is not that entry's hash)`,
      );
    if (!keyed && !signed && authenticated) {
      if (seenAuthenticated) {
        problems.push(
          `entry ${number}: carries no key or signature after keyed or signed entries (the chain was recomputed without the key)`,
        );
      } else unauthenticatedLeading++;
    }
    const expected = entryHash(entry.seq, entry.prev, entry.record, keyed ? key : undefined);
    if (!sameText(entry.hash, expected)) {
      problems.push(
        keyed
          ? `entry ${number}: its content does not match its HMAC under this key (the entry was changed, or the key is not the log's)`
          : `entry ${number}: its content does not match its hash (the entry was changed)`,
      );
    }
    if (signed && publicKey !== undefined && !entrySignatureHolds(entry, publicKey)) {
      problems.push(
        `entry ${number}: its signature does not verify under this public key (the entry was changed, or signed with another key)`,
      );
    }
    lastKind = signed ? "signed" : keyed ? "keyed" : "unkeyed";
    seenAuthenticated ||= keyed || signed;
    prev = entry.hash;
    hashes.push(entry.hash);
  });
  const entries = texts.length;
  if (authenticated && entries > 0) {
    const wanted = publicKey !== undefined ? "signed" : "keyed";
    if (lastKind !== wanted && lastKind !== "signed") {
      problems.push(
        `entry ${entries}: the last entry carries no ${publicKey !== undefined ? "signature" : "key"}, so anyone could have written the chain (it was written without the key, or recomputed)`,
      );
    } else if (unauthenticatedLeading > 0 && unauthenticatedLeading < entries) {
      notes.push(
        `entries 1 to ${unauthenticatedLeading} were written before a key was set; the keyed or signed entry after them vouches for them`,
      );
    }
  }
  const head = checkHead(storedHead, {
    entries,
    prev,
    last,
    key,
    publicKey,
    problems,
    notes,
    headRequired: options.headRequired === true,
  });
  if (options.anchor !== undefined) {
    checkAnchor(options.anchor, { hashes, head, key, publicKey, problems, notes });
  }
  if (head?.chain !== undefined) {
    notes.push(`chain ${head.chain}, begun ${head.startedAt ?? "at an unknown time"}`);
  }
  return {
    intact: problems.length === 0,
    chain:
      entries === 0
        ? "empty"
        : !authenticated
          ? "unkeyed"
          : lastKind === "signed" && publicKey !== undefined
            ? "signed"
            : "keyed",
    entries,
    lastHash: prev,
    head,
    problems,
    notes,
    records,
    ...(publicKey !== undefined ? { publicKey: publicKeyFingerprint(publicKey) } : {}),
  };
}

interface HeadCheck {
  entries: number;
  prev: string;
  /** The last entry, when there is one and it could be read. */
  last: AuditLogEntry | undefined;
  key: string | undefined;
  publicKey: KeyObject | undefined;
  problems: string[];
  notes: string[];
  headRequired: boolean;
}

function checkHead(stored: unknown, chain: HeadCheck): AuditLogHead | undefined {
  const { entries, prev, last, key, publicKey, problems, notes } = chain;
  const authenticated = key !== undefined || publicKey !== undefined;
  if (stored === undefined) {
    if (entries === 0) {
      if (authenticated) {
        problems.push(
          "the trail holds no entries and no head: a keyed or signed trail begins with a head of 0 entries that carries its key, so this trail was emptied (its entries and its head removed), or its writer never opened it",
        );
      }
      return undefined;
    }
    if (authenticated || chain.headRequired) {
      problems.push(
        "the log has no head (its entry count and last hash), so entries cut from the end cannot be ruled out",
      );
    } else {
      notes.push(
        "the log has no head (it was written before heads were kept): entries cut from the end cannot be detected",
      );
    }
    return undefined;
  }
  const head = parseAuditHead(stored);
  if ("problem" in head) {
    problems.push(head.problem);
    return undefined;
  }
  if (!headAuthenticates(head, { key, publicKey, problems, what: "the head" })) return head;
  if (head.entries === entries && head.lastHash === prev) return head;
  // The writer stopped between appending an entry and moving the head: the entry is chained.
  if (head.entries === entries - 1 && last !== undefined && head.lastHash === last.prev) {
    notes.push("the head is one entry behind: the writer stopped between the entry and its head");
    return head;
  }
  problems.push(
    head.entries > entries
      ? `the head says ${head.entries} entries ending in ${head.lastHash}, but the log holds ${entries} ending in ${prev} (entries were cut from the end, or the log was emptied or replaced)`
      : `the head says ${head.entries} entries ending in ${head.lastHash}, but the log holds ${entries} ending in ${prev} (the head names fewer entries than were written: it was replaced by an older one, or the log was replaced)`,
  );
  return head;
}

/**
 * Whether a head carries what the checker holds: with a public key, a
 * signature that verifies; with only a key, a MAC that verifies. A MAC or
 * a signature the checker cannot check, with nothing it can, throws.
 */
function headAuthenticates(
  head: AuditLogHead,
  check: {
    key: string | undefined;
    publicKey: KeyObject | undefined;
    problems: string[];
    what: string;
  },
): boolean {
  const { key, publicKey, problems, what } = check;
  if (head.signature !== undefined && publicKey === undefined && key === undefined) {
    throw new AuditKeyRequiredError(`${what} is signed (Ed25519): ${publicKeyNeeded}.`);
  }
  if (head.mac !== undefined && key === undefined && publicKey === undefined) {
    throw new AuditKeyRequiredError(
      `${what} is keyed (HMAC-SHA256): verifying the log needs its key (the auditKey option, or SWITCHYARD_AUDIT_KEY for switchyard audit).`,
    );
  }
  if (publicKey !== undefined) {
    if (head.signature === undefined) {
      problems.push(`${what} carries no signature, so anyone could have written it`);
      return false;
    }
    if (!headSignatureHolds(head, publicKey)) {
      problems.push(
        `${what} does not match its signature under this public key (it was changed, or signed with another key)`,
      );
      return false;
    }
  } else if (key !== undefined && head.mac === undefined) {
    if (head.signature !== undefined) {
      throw new AuditKeyRequiredError(`${what} is signed (Ed25519): ${publicKeyNeeded}.`);
    }
    problems.push(`${what} carries no key, so anyone could have written it`);
    return false;
  }
  if (key !== undefined && head.mac !== undefined && !headMacHolds(head, key)) {
    problems.push(
      `${what} does not match its HMAC under this key (it was changed, or the key is not the log's)`,
    );
    return false;
  }
  return true;
}

/** An earlier head kept elsewhere: the trail must be the same chain and still hold what it named. */
function checkAnchor(
  stored: unknown,
  trail: {
    hashes: readonly string[];
    head: AuditLogHead | undefined;
    key: string | undefined;
    publicKey: KeyObject | undefined;
    problems: string[];
    notes: string[];
  },
): void {
  const { hashes, head, problems } = trail;
  const anchor = parseAuditHead(stored);
  if ("problem" in anchor) {
    problems.push(`the anchored head: ${anchor.problem}`);
    return;
  }
  if (trail.key === undefined && trail.publicKey === undefined) {
    problems.push(
      "the anchored head can be checked only with the trail's key or public key (nobody else could have written it)",
    );
    return;
  }
  if (
    !headAuthenticates(anchor, {
      key: trail.key,
      publicKey: trail.publicKey,
      problems,
      what: "the anchored head",
    })
  ) {
    return;
  }
  if (anchor.chain !== undefined && head?.chain !== undefined && anchor.chain !== head.chain) {
    problems.push(
      `the trail is chain ${head.chain} (begun ${head.startedAt ?? "at an unknown time"}), not the anchored chain ${anchor.chain} (begun ${anchor.startedAt ?? "at an unknown time"}): the trail was emptied and begun again, or replaced by another`,
    );
    return;
  }
  const held = hashes.length - 1;
  if (anchor.entries > held) {
    problems.push(
      `the anchored head names ${anchor.entries} entries, but the trail holds ${held}: entries were removed (an older copy of the log and its head restored, or the trail emptied)`,
    );
    return;
  }
  if (hashes[anchor.entries] !== anchor.lastHash) {
    problems.push(
      `entry ${anchor.entries} is not the one the anchored head names (its hash differs): the trail was rewritten`,
    );
    return;
  }
  trail.notes.push(
    `the trail holds the ${anchor.entries} entries of the anchored head, and ${held - anchor.entries} since`,
  );
}
