import { ConfigurationError } from "../../errors/configuration-error.js";
import { UnexpectedAnswerError } from "../../errors/unexpected-answer-error.js";
import { HttpClient } from "../../internal/http/http-client.js";
import {
  findTransportOptionProblems,
  pickTransportOptions,
  type TransportOptions,
} from "../../internal/http/transport-options.js";
import { componentLogger, type Logger } from "../../internal/logger.js";
import { attachSecrets, SecretRegistry, secretsOf } from "../../internal/redact.js";
import type { RequestOptions } from "../request-options.js";
import { fillRoutePath } from "../route-table.js";
import { type CheckSiteOptions, checkDocsSite } from "./check-site.js";
import { checkSiteConfig } from "./check-site-config.js";
import {
  readDocumentation,
  readDocumentationList,
  readManifest,
  readPullResult,
  readPushResult,
  readUser,
} from "./docs-answers.js";
import { checkDocsBaseUrl } from "./docs-base-url.js";
import type { DocsFileAccess } from "./docs-file-access.js";
import {
  checkDocumentationId,
  checkDocumentationName,
  checkMessage,
  checkPaths,
  checkPushFiles,
} from "./docs-input-checks.js";
import {
  type DocsRouteName,
  type DocsRouteOverrides,
  type DocsRoutes,
  resolveDocsRoutes,
} from "./docs-routes.js";
import type {
  DocsFile,
  DocsManifest,
  DocsPullResult,
  DocsPushResult,
  DocsUser,
  Documentation,
} from "./docs-types.js";
import { type EditFileResult, editDocsFile } from "./edit-file.js";
import { checkFileEdit, type FileEdit } from "./file-edit.js";
import type { SiteCheckInput, SiteCheckResult } from "./site-finding.js";

/** Options of `DocsClient`: the CLI API root, its token, and the shared transport options. */
export interface DocsClientOptions extends TransportOptions {
  /** The CLI API root; its path must end with `/cli/v1`, e.g. `https://docs.example.com/cli/v1`. */
  baseUrl: string;
  /** Bearer access token; a local token does not work against production and the reverse. Never logged. */
  token: string;
  /** Retries after the first attempt (reads, and any request answered 408/429). @default 2 */
  maxRetries?: number | undefined;
  /** Overrides of the route table, merged over `docsRoutes`. */
  routes?: DocsRouteOverrides | undefined;
  /** Shown in logs and errors, e.g. `local` or `production`. */
  environment?: string | undefined;
}

/**
 * Client of the documentation-hosting CLI API (docs/contract.md §3): projects, the
 * current user, manifests, pulling and pushing files, a single-file edit
 * and a check of the site's configuration.
 *
 * @example
 * const docs = new DocsClient({ baseUrl: "https://docs.example.com/cli/v1", token });
 * await docs.editFile(id, "guides/quickstart.mdx", { find: "v1.2", replace: "v1.3" }, "Bump version");
 */
export class DocsClient implements DocsFileAccess {
  /** The CLI API root, without a trailing slash. */
  readonly baseUrl: string;
  /** The route table in use (defaults merged with `routes`). */
  readonly routes: Readonly<DocsRoutes>;
  readonly #http: HttpClient;
  readonly #logger: Logger;

  constructor(options: DocsClientOptions) {
    if (typeof options !== "object" || options === null) {
      throw new ConfigurationError(
        "DocsClient needs options { baseUrl, token }: the CLI API root ending in /cli/v1 and an access token",
      );
    }
    const problems: string[] = [];
    let baseUrl = "";
    try {
      baseUrl = checkDocsBaseUrl(options.baseUrl);
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error;
      problems.push(...error.problems);
    }
    if (typeof options.token !== "string" || options.token.trim() === "") {
      problems.push("token is required: pass the documentation CLI access token");
    } else if (/\s/.test(options.token)) {
      problems.push(
        "token contains whitespace: pass the access token alone, without `Bearer ` or a line break",
      );
    }
    let routes: DocsRoutes | undefined;
    try {
      routes = resolveDocsRoutes(options.routes);
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error;
      problems.push(...error.problems);
    }
    problems.push(...findTransportOptionProblems(options));
    if (problems.length > 0 || !routes) throw new ConfigurationError(problems);
    this.baseUrl = baseUrl;
    this.routes = routes;
    this.#logger = componentLogger(
      options.logger,
      "docs-client",
      attachSecrets(this, new SecretRegistry().add(options.token)),
    );
    this.#http = new HttpClient({
      secrets: secretsOf(this),
      baseUrl,
      token: options.token,
      ...pickTransportOptions(options),
      logger: this.#logger,
      environment: options.environment,
    });
  }

  /** The user the token belongs to (`GET /auth/user`). */
  async getCurrentUser(options?: RequestOptions): Promise<DocsUser> {
    return this.#call("getCurrentUser", {}, undefined, options, readUser);
  }

  /** Every documentation project the user can see; accepts `{documentations: [...]}` or a bare array. */
  async listDocumentations(options?: RequestOptions): Promise<Documentation[]> {
    return this.#call("listDocumentations", {}, undefined, options, readDocumentationList);
  }

  /**
   * Creates a project named `name`. Not retried after an answer that may
   * mean it was created (only on 408/429), so it never creates two.
   */
  async createDocumentation(name: string, options?: RequestOptions): Promise<Documentation> {
    const body = { name: checkDocumentationName(name) };
    return this.#call("createDocumentation", {}, { body }, options, (value, problems) => {
      return readDocumentation(value, problems) ?? { documentationId: "" };
    });
  }

  /** The project's file list (paths and titles, no content). */
  async getManifest(documentationId: string, options?: RequestOptions): Promise<DocsManifest> {
    const id = checkDocumentationId(documentationId);
    const skipped: string[] = [];
    const manifest = await this.#call(
      "getManifest",
      { documentationId: id },
      undefined,
      options,
      (value, problems) => readManifest(value, problems, skipped),
    );
    if (skipped.length > 0) {
      this.#logger.warn(
        { documentationId: id, skipped },
        "manifest entries without a path were left out",
      );
    }
    return manifest;
  }

  /** The content of the given files. A read, so retried like one. */
  async pullFiles(
    documentationId: string,
    paths: readonly string[],
    options?: RequestOptions,
  ): Promise<DocsPullResult> {
    const id = checkDocumentationId(documentationId);
    const body = { paths: [...checkPaths(paths)] };
    return this.#call(
      "pullFiles",
      { documentationId: id },
      { body, idempotent: true },
      options,
      readPullResult,
    );
  }

  /**
   * Pushes changed files with a change message. Every file needs a string
   * `path`, `title` and `content`; one bad file stops the push (nothing is
   * sent) and every bad file is named.
   */
  async pushFiles(
    documentationId: string,
    files: readonly DocsFile[],
    message: string,
    options?: RequestOptions,
  ): Promise<DocsPushResult> {
    const id = checkDocumentationId(documentationId);
    const checked = checkPushFiles(files);
    const body = {
      files: checked.map((file) => ({ path: file.path, title: file.title, content: file.content })),
      message: checkMessage(message),
    };
    this.#logger.debug(
      { documentationId: id, paths: checked.map((file) => file.path) },
      "pushing files",
    );
    return this.#call("pushFiles", { documentationId: id }, { body }, options, readPushResult);
  }

  /**
   * Edits one file: reads the manifest, locates `path`, pulls it, applies
   * `edit` and pushes only if the content changed. A path not in the
   * manifest throws `DocsPathNotFoundError` naming the closest paths; a
   * `find` that does not occur throws `DocsTextNotFoundError`.
   *
   * @example
   * await docs.editFile(id, "index.mdx", (content) => content.replace(/2024/g, "2025"), "Update year");
   */
  async editFile(
    documentationId: string,
    path: string,
    edit: FileEdit,
    message: string,
    options?: RequestOptions,
  ): Promise<EditFileResult> {
    const id = checkDocumentationId(documentationId);
    if (typeof path !== "string" || path.trim() === "") {
      throw new ConfigurationError("path must be the non-empty path of a file in the manifest");
    }
    const checkedEdit = checkFileEdit(edit);
    const checkedMessage = checkMessage(message);
    return editDocsFile(
      this,
      this.#logger,
      { documentationId: id, path, edit: checkedEdit, message: checkedMessage },
      options,
    );
  }

  /**
   * Checks a site configuration you already hold: `layout.json`, the OpenAPI
   * files it names (JSON or YAML text, or parsed) and the pages with their
   * front matter. Reports each of the five causes of a blank or missing API
   * page and the configuration-key problems, with where and how to fix each.
   * Sends nothing; use `checkSite` to pull a hosted project's files first.
   * @example
   * const { ok, findings } = docs.checkSiteConfig({ layout, openapi: { "openapi.yaml": text }, pages });
   */
  checkSiteConfig(input: SiteCheckInput): SiteCheckResult {
    return checkSiteConfig(input);
  }

  /**
   * Pulls the site's `layout.json`, the OpenAPI files it names and its
   * pages, and runs `checkSiteConfig` on them.
   */
  async checkSite(
    documentationId: string,
    siteOptions?: CheckSiteOptions,
    options?: RequestOptions,
  ): Promise<SiteCheckResult> {
    return checkDocsSite(this, checkDocumentationId(documentationId), siteOptions, options);
  }

  async #call<T>(
    name: DocsRouteName,
    parameters: Record<string, string>,
    request: { body?: unknown; idempotent?: boolean } | undefined,
    options: RequestOptions | undefined,
    read: (value: unknown, problems: string[]) => T,
  ): Promise<T> {
    const route = this.routes[name];
    const path = fillRoutePath(route.path, parameters);
    const value = await this.#http.requestJson<unknown>({
      method: route.method,
      path,
      body: request?.body,
      idempotent: request?.idempotent,
      signal: options?.signal,
      timeoutMs: options?.timeoutMs,
    });
    const problems: string[] = [];
    const result = read(value, problems);
    if (problems.length > 0) {
      throw new UnexpectedAnswerError(
        {
          method: route.method,
          url: this.#http.redact(this.#http.buildUrl({ path })),
          service: "the documentation CLI service",
        },
        problems,
      );
    }
    return result;
  }
}
