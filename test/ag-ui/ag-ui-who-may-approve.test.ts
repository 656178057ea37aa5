import { HttpAgent } from "@ag-ui/client";
import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalAuditRecord } from "../../src/agent/approval/approval-audit-record.js";
import { runIdOfApprovalId } from "../../src/agent/approval/approval-id.js";
import { approverDirectory } from "../../src/agent/approval/approver-directory.js";
import {
  type AgUiTestServer,
  approve,
  type ClientRun,
  deletingSteps,
  deny,
  postRun,
  runClient,
  startAgUiServer,
} from "./ag-ui-server.js";

/** Each person's credential: what `authorize` checks before it names anyone. */
const credentials: Record<string, string> = {
  ada: "cred-ada-7f3a",
  kim: "cred-kim-19bd",
  sam: "cred-sam-c04e",
  eve: "cred-eve-5521",
};

/**
 * Names the person whose credential the request carries, and nobody
 * otherwise: a request claiming someone (x-user) without their credential
 * is nobody's.
 */
function authorize(request: Request): string | undefined {
  const user = request.headers.get("x-user") ?? "";
  const given = request.headers.get("x-credential");
  return credentials[user] !== undefined && given === credentials[user]
    ? `${user}@example.com`
    : undefined;
}

/** Ada (support) starts runs; Kim (lead) may approve them; Sam is in sales; Eve is in no directory. */
const directory = approverDirectory({
  people: [
    { id: "ada", name: "Ada Obi", roles: ["support"], identities: { agUi: ["ada@example.com"] } },
    { id: "kim", name: "Kim Lee", roles: ["lead"], identities: { agUi: ["kim@example.com"] } },
    { id: "sam", name: "Sam Roe", roles: ["sales"], identities: { agUi: ["sam@example.com"] } },
  ],
});

let server: AgUiTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server whose deletions a support person or a lead may approve, never the person who asked. */
async function startServer(records: ApprovalAuditRecord[], required = 1): Promise<AgUiTestServer> {
  return startAgUiServer(deletingSteps(["rec_1"]), {
    authorize,
    // Anyone signed in may answer on any thread: who counts is the directory's business.
    threadAccess: () => true,
    agentOptions: {
      approverDirectory: directory,
      approvalPolicy: {
        rules: [
          {
            name: "deletions by support or a lead",
            tool: "delete_records",
            decision: "ask",
            roles: ["support", "lead"],
            required,
          },
        ],
      },
      onApprovalDecided: (record) => {
        records.push(record);
      },
    },
  });
}

/** The official client, signed in as `user` with their credential, on `threadId`. */
function signedIn(url: string, user: string, threadId?: string): HttpAgent {
  return new HttpAgent({
    url,
    headers: { "x-user": user, "x-credential": credentials[user]! },
    ...(threadId ? { threadId } : {}),
  });
}

/** Ada asks for a deletion on a new thread: the interrupt that asks who may approve it. */
async function adaAsks(url: string): Promise<{ thread: string; asked: ClientRun }> {
  const ada = signedIn(url, "ada");
  const asked = await runClient(ada, { message: "Delete rec_1" });
  expect(asked.error).toBeUndefined();
  expect(asked.interrupts).toHaveLength(1);
  return { thread: ada.threadId, asked };
}

describe("who may approve an AG-UI interrupt, as authorize names the person", () => {
  it("a lead approves the support person's run: the call runs once and the record names the lead by principal", async () => {
    const records: ApprovalAuditRecord[] = [];
    server = await startServer(records);
    const { thread, asked } = await adaAsks(server.url);
    const [interrupt] = asked.interrupts;

    // The run was started by the person who sent the message.
    const state = await server.runStore.load(runIdOfApprovalId(interrupt!.id)!);
    expect(state.startedBy).toEqual({ channel: "agUi", id: "ada@example.com" });
    // The interrupt says who may answer it: the rule's roles, less the person who asked.
    const shown = interrupt!.metadata?.switchyard as { whoMayApprove?: Record<string, unknown> };
    const who = shown.whoMayApprove;
    expect(who).toMatchObject({ required: 1, roles: ["support", "lead"], excluded: "ada" });
    expect(who?.people).toEqual([{ id: "kim", name: "Kim Lee" }]);

    const byKim = await runClient(signedIn(server.url, "kim", thread), {
      resume: [approve(interrupt!)],
    });

    expect(byKim.error).toBeUndefined();
    expect(server.runs).toEqual([{ ids: ["rec_1"] }]);
    expect(records).toEqual([
      expect.objectContaining({
        outcome: "approved",
        answeredBy: { channel: "agUi", id: "kim@example.com" },
        people: [{ id: "kim", name: "Kim Lee", channel: "agUi", evidence: "kim@example.com" }],
      }),
    ]);
  });

  it("the person who started the run cannot approve it: self_approval, and nothing runs", async () => {
    const records: ApprovalAuditRecord[] = [];
    server = await startServer(records);
    const { thread, asked } = await adaAsks(server.url);

    const byAda = await runClient(signedIn(server.url, "ada", thread), {
      resume: [approve(asked.interrupts[0]!)],
    });

    expect(byAda.error).toBeUndefined();
    expect(server.runs).toEqual([]);
    expect(records).toEqual([
      expect.objectContaining({
        outcome: "refused",
        code: "self_approval",
        people: [expect.objectContaining({ id: "ada", evidence: "ada@example.com" })],
      }),
    ]);
  });

  it("a person of another role, and a person the directory does not know, approve nothing (approver_not_allowed)", async () => {
    for (const user of ["sam", "eve"]) {
      const records: ApprovalAuditRecord[] = [];
      server = await startServer(records);
      const { thread, asked } = await adaAsks(server.url);

      const answered = await runClient(signedIn(server.url, user, thread), {
        resume: [approve(asked.interrupts[0]!)],
      });

      expect(answered.error, user).toBeUndefined();
      expect(server.runs, user).toEqual([]);
      expect(records, user).toEqual([
        expect.objectContaining({
          outcome: "refused",
          code: "approver_not_allowed",
          answeredBy: { channel: "agUi", id: `${user}@example.com` },
        }),
      ]);
      await server.close();
      server = undefined;
    }
  });

  it("a denial from someone the rule does not allow is refused too, and names who answered", async () => {
    const records: ApprovalAuditRecord[] = [];
    server = await startServer(records);
    const { thread, asked } = await adaAsks(server.url);

    await runClient(signedIn(server.url, "sam", thread), {
      resume: [deny(asked.interrupts[0]!, "not mine to say")],
    });

    expect(server.runs).toEqual([]);
    expect(records).toEqual([
      expect.objectContaining({
        outcome: "refused",
        code: "approver_not_allowed",
        answeredBy: { channel: "agUi", id: "sam@example.com" },
      }),
    ]);
  });

  it("one answer is one person: a rule needing two people is not approved by the lead alone, and nothing runs", async () => {
    const records: ApprovalAuditRecord[] = [];
    server = await startServer(records, 2);
    const { thread, asked } = await adaAsks(server.url);
    const shown = asked.interrupts[0]!.metadata?.switchyard as { whoMayApprove?: unknown };
    expect(shown.whoMayApprove).toMatchObject({ required: 2 });

    await runClient(signedIn(server.url, "kim", thread), {
      resume: [approve(asked.interrupts[0]!)],
    });

    expect(server.runs).toEqual([]);
    expect(records).toEqual([
      expect.objectContaining({ outcome: "refused", code: "not_enough_approvers" }),
    ]);
  });

  it("a request claiming the lead without the lead's credential is nobody's: refused before anything is spent", async () => {
    const records: ApprovalAuditRecord[] = [];
    server = await startServer(records);
    const { thread, asked } = await adaAsks(server.url);
    const interrupt = asked.interrupts[0]!;

    // x-user says kim, and no credential comes with it.
    const forged = await postRun(
      server.url,
      { threadId: thread, resume: [approve(interrupt)] },
      "kim",
    );
    // Eve's own credential, claiming Kim in the body: authorize names Eve, whom the directory does not know.
    const asEve = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        "x-user": "eve",
        "x-credential": credentials.eve!,
      },
      body: JSON.stringify({
        threadId: thread,
        runId: crypto.randomUUID(),
        messages: [],
        tools: [],
        context: [],
        forwardedProps: {
          principal: "kim@example.com",
          answeredBy: { channel: "agUi", id: "kim@example.com" },
        },
        resume: [approve(interrupt)],
      }),
    });
    await asEve.text();

    expect(forged.error?.code).toBe("unauthorized");
    expect(server.runs).toEqual([]);
    expect(records).toEqual([
      expect.objectContaining({
        outcome: "refused",
        code: "approver_not_allowed",
        answeredBy: { channel: "agUi", id: "eve@example.com" },
      }),
    ]);
  });
});
