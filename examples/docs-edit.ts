/**
 * docs-edit: check a documentation site's configuration, then change one
 * page (manifest -> pull -> edit -> push) once a person approves.
 *
 *   node --import tsx examples/docs-edit.ts
 *   node --import tsx examples/docs-edit.ts --task 'In the docs project "Storefront API", on page support.mdx replace one business day with two business days.'
 *
 * The same as `switchyard run docs-edit`.
 */
import { Agent, docsTools } from "switchyard-agents";
import { type ExampleDefinition, runIfMain } from "switchyard-agents/cli";

const instructions = `You maintain a documentation site.
Find the project the user names with list_documentations.
When asked to check the site, run check_site_config and report how many errors and warnings it found, with their codes.
To change a page, use edit_docs_file: it reads the manifest, pulls the page, replaces the text and pushes the page back.
Pushing overwrites the live page, so a person is asked to approve it first. If that is refused, say the page was not changed and why; do not retry.
Finish by saying what you found and whether the page was changed.`;

/** The docs-edit example, as `switchyard run` and the tests run it. */
export const docsEdit: ExampleDefinition = {
  name: "docs-edit",
  description:
    "Check the site configuration, then change one page (manifest, pull, push) after approval.",
  defaultTask:
    'In the docs project "Storefront API", check the site configuration, then on page support.mdx replace help@old-storefront.example with support@storefront.example.',
  instructions,
  uses: ["docs", "messaging"],
  createAgent: (services) =>
    new Agent({
      model: services.model,
      // push_docs_files and edit_docs_file need approval by default; reading,
      // listing and the site check do not.
      tools: docsTools(services.docs),
      instructions,
      approver: services.approver,
      // `switchyard run --allow-edits`: the person may change the call before approving it.
      approvalPolicy: { edits: services.allowEdits },
      logger: services.logger,
      // Set for `switchyard run --no-wait` and `switchyard resume`: the run is saved as it goes.
      runStore: services.runStore,
      stateKey: services.stateKey,
      auditLog: services.auditLog,
      approverDirectory: services.approverDirectory,
    }),
};

runIfMain(import.meta.url, docsEdit);
