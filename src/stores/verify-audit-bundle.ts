import type { KeyObject } from "node:crypto";
import type { ApprovalAuditRecord } from "../agent/approval/approval-audit-record.js";
import type { AuditLogVerification } from "../agent/approval/audit-log.js";
import { buildOnFirstUse } from "../internal/build-on-first-use.js";
import { loadZod } from "../internal/load-zod.js";
import {
  auditLogGenesis,
  entryHash,
  entrySignatureHolds,
  headSignatureHolds,
  parseAuditEntryValue,
  parseAuditHead,
} from "./audit-chain.js";
import { parseAuditPublicKey, publicKeyFingerprint } from "./audit-signing.js";
import {
  type AuditBundle,
  type AuditBundleSelection,
  checkAuditSelection,
  inAuditSelection,
} from "./export-audit-bundle.js";

/** What {@link verifyAuditBundle} found: the chain, the head, the selected records, and the selection and key. */
export type AuditBundleVerification = AuditLogVerification &
  Required<Pick<AuditLogVerification, "selection">>;

const shapes = buildOnFirstUse(() => {
  const { z } = loadZod();
  const text = z.string();
  return {
    bundle: z.object({
      format: z.literal("switchyard-audit-bundle"),
      version: z.literal(1),
      source: text,
      exportedAt: text,
      selection: z.strictObject({
        runId: text.optional(),
        since: text.optional(),
        until: text.optional(),
      }),
      publicKey: text,
      head: z.unknown(),
      entries: z.array(z.unknown()),
    }),
    link: z.strictObject({
      seq: z.number().int().positive(),
      prev: text,
      hash: text,
      runId: text.optional(),
      decidedAt: text,
      signature: text,
    }),
  };
});

/**
 * Checks an audit bundle ({@link AuditBundle}, parsed from its JSON)
 * offline, with nothing but the public key: give `publicKey` (the agent's,
 * as you hold it) so a bundle re-signed with another key fails. Without it
 * the bundle is checked against the key it carries, which anyone forging a
 * bundle can carry: it is then never `intact`, only `consistent`, with that
 * key's fingerprint in `unverifiedKey` and a problem saying to give the key.
 *
 * Applications reach it through `verifyAuditLog(bundle, { publicKey })`.
 */
export function verifyAuditBundle(
  bundle: unknown,
  options: { publicKey?: string | KeyObject | undefined } = {},
): AuditBundleVerification {
  const problems: string[] = [];
  const notes: string[] = [];
  const records: ApprovalAuditRecord[] = [];
  const failed = (problem: string): AuditBundleVerification => ({
    intact: false,
    chain: "empty",
    entries: 0,
    lastHash: auditLogGenesis,
    head: undefined,
    problems: [problem],
    notes,
    records,
    selection: {},
  });
  const parsed = shapes().bundle.safeParse(bundle);
  if (!parsed.success) {
    return failed(
      "not a Switchyard audit bundle (format switchyard-audit-bundle, version 1, with selection, publicKey, head and entries)",
    );
  }
  const given = parsed.data as Omit<AuditBundle, "head" | "entries"> & {
    head: unknown;
    entries: unknown[];
  };
  let selection: AuditBundleSelection;
  try {
    selection = checkAuditSelection(given.selection);
  } catch (error) {
    return failed(`the bundle's selection: ${(error as Error).message}`);
  }
  let carried: KeyObject;
  try {
    carried = parseAuditPublicKey(given.publicKey, "the bundle's publicKey");
  } catch (error) {
    return failed((error as Error).message);
  }
  let publicKey = carried;
  if (options.publicKey !== undefined) {
    publicKey = parseAuditPublicKey(options.publicKey, "verifyAuditBundle's publicKey");
    if (!publicKey.equals(carried)) {
      problems.push(
        `the bundle carries another public key (${publicKeyFingerprint(carried)}) than the one given (${publicKeyFingerprint(publicKey)}): it was signed with another key`,
      );
    }
  }
  let prev = auditLogGenesis;
  let seenSigned = false;
  given.entries.forEach((item, index) => {
    const number = index + 1;
    const whole = parseAuditEntryValue(item);
    const link = "problem" in whole ? shapes().link.safeParse(item) : undefined;
    if ("problem" in whole && !link?.success) {
      problems.push(`entry ${number}: neither an entry nor a link of a known shape`);
      prev = "";
      return;
    }
    const entry = "problem" in whole ? link!.data! : whole;
    if (entry.seq !== number) {
      problems.push(
        `entry ${number}: numbered ${entry.seq}, expected ${number} (an entry was removed or moved)`,
      );
    }
    if (entry.prev !== prev) {
      problems.push(
        `entry ${number}: does not follow the entry before (its prev is not that entry's hash)`,
      );
    }
    prev = entry.hash;
    const signed = entry.signature !== undefined;
    if (!("problem" in whole)) {
      if (whole.hash.startsWith("hmac-sha256:")) {
        problems.push(`entry ${number}: keyed with HMAC, which nobody without the key can check`);
      } else if (whole.hash !== entryHash(whole.seq, whole.prev, whole.record, undefined)) {
        problems.push(
          `entry ${number}: its record does not match its hash (the record was changed)`,
        );
      }
      if (inAuditSelection(whole.record, selection)) records.push(whole.record);
    } else if (inAuditSelection(link!.data!, selection)) {
      problems.push(
        `entry ${number}: it is of the selection, but the bundle leaves its record out`,
      );
    }
    const statement = "problem" in whole ? { ...link!.data!, record: link!.data! } : whole;
    if (!signed) {
      if (seenSigned) problems.push(`entry ${number}: carries no signature after signed entries`);
    } else if (!entrySignatureHolds(statement, publicKey)) {
      problems.push(
        `entry ${number}: its signature does not verify under the public key (the entry was changed, or signed with another key)`,
      );
    }
    seenSigned ||= signed;
  });
  const entries = given.entries.length;
  const head = parseAuditHead(given.head);
  if ("problem" in head) {
    problems.push(`the bundle's head: ${head.problem}`);
  } else {
    if (!headSignatureHolds(head, publicKey)) {
      problems.push(
        "the bundle's head does not match its signature under the public key (it was changed, or signed with another key)",
      );
    }
    if (head.entries !== entries || head.lastHash !== prev) {
      problems.push(
        `the head names ${head.entries} entries ending in ${head.lastHash}, but the bundle holds ${entries} ending in ${prev} (entries were removed or added)`,
      );
    }
    if (head.chain !== undefined) {
      notes.push(`chain ${head.chain}, begun ${head.startedAt ?? "at an unknown time"}`);
    }
  }
  if (entries > 0 && !seenSigned) problems.push("no entry of the bundle is signed");
  const consistent = problems.length === 0;
  const pinned = options.publicKey !== undefined;
  if (!pinned) {
    // Anyone can sign a bundle with a key of their own: only the agent's key makes it evidence.
    problems.push(
      `signed by an unverified key ${publicKeyFingerprint(carried)}: give the agent's public key (switchyard audit verify --public-key FILE, or verifyAuditLog's publicKey) to check the bundle is the agent's; anyone can sign a bundle with a key of their own`,
    );
  }
  return {
    intact: problems.length === 0,
    consistent,
    ...(pinned ? {} : { unverifiedKey: publicKeyFingerprint(carried) }),
    chain: entries === 0 ? "empty" : "signed",
    entries,
    lastHash: prev,
    head: "problem" in head ? undefined : head,
    problems,
    notes,
    records,
    publicKey: publicKeyFingerprint(publicKey),
    selection,
  };
}
