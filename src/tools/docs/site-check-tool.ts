import type { SiteFinding } from "../../clients/docs/site-finding.js";
import { defineTool } from "../define-tool.js";
import { scrubResult } from "../scrub-result.js";
import type { NeedsApproval, Tool } from "../tool.js";
import { trimList } from "../trim-list.js";
import type { DocsToolArguments } from "./docs-tool-names.js";
import { docsToolSchemas } from "./docs-tool-schemas.js";
import type { DocsToolsClient } from "./docs-tools-client.js";

/** Most findings one check_site_config result shows; errors come first. */
export const maximumShownFindings = 30;

/** Result of check_site_config. */
export interface CheckSiteConfigResult {
  /** True when no finding is an error. */
  ok: boolean;
  findings: SiteFinding[];
  /** Findings in all, shown or not. */
  count: number;
  /** Findings left out of `findings`, present when some were. */
  omitted?: number;
}

/** check_site_config: the site configuration checks of a project. */
export function checkSiteConfigTool(
  client: DocsToolsClient,
  needsApproval: NeedsApproval<DocsToolArguments["check_site_config"]>,
): Tool<DocsToolArguments["check_site_config"], CheckSiteConfigResult> {
  return defineTool({
    name: "check_site_config",
    description: `Checks a documentation project's site configuration (layout.json, the OpenAPI files it names and the pages) for the faults that leave pages blank or missing. Returns {ok, findings: [{severity: "error"|"warning", code, message, where, fix}], count}; ok is false when any finding is an error. At most ${maximumShownFindings} findings are shown, errors first; count says how many there are in all. Read-only.`,
    parameters: docsToolSchemas().checkSiteConfigParameters,
    needsApproval,
    readOnly: true,
    execute: async ({ documentation_id, layout_path }, { signal }) => {
      const check = await client.checkSite(
        documentation_id,
        layout_path !== undefined ? { layoutPath: layout_path } : {},
        { signal },
      );
      const ordered = [
        ...check.findings.filter((finding) => finding.severity === "error"),
        ...check.findings.filter((finding) => finding.severity !== "error"),
      ];
      const { shown, omitted } = trimList(ordered, maximumShownFindings);
      const result: CheckSiteConfigResult = {
        ok: check.ok,
        findings: shown,
        count: check.findings.length,
        ...(omitted > 0 ? { omitted } : {}),
      };
      return scrubResult(result);
    },
  });
}
