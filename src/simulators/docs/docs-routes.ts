import { describeJsonValue, isJsonObject } from "../http/json-values.js";
import type { Route } from "../http/route.js";
import { SimulatorHttpError } from "../http/simulator-http-error.js";
import { toRfc3339 } from "../http/timestamps.js";
import type { DocsPush, DocsState, Documentation } from "./docs-state.js";
import { pageTitle } from "./page-title.js";

/** What the documentation routes share: the state (replaced by `reset`), ids and the clock. */
export interface DocsService {
  state: DocsState;
  /** A new project's id: fresh on every start, or from the seed when one was given. */
  newId(): string;
  now(): Date;
}

/** The CLI endpoints of docs/contract.md §3, relative to `/cli/v1`. */
export function docsRoutes(service: DocsService): Route[] {
  return [
    { method: "GET", pattern: "/auth/user", handle: () => ({ body: { ...service.state.user } }) },
    {
      method: "GET",
      pattern: "/documentations",
      handle: () => ({
        body: { documentations: service.state.documentations.map(describeProject) },
      }),
    },
    {
      method: "POST",
      pattern: "/documentations",
      handle: ({ body }) => ({ status: 201, body: describeProject(createProject(service, body)) }),
    },
    {
      method: "GET",
      pattern: "/documentations/:documentationId/manifest",
      handle: ({ params }) => {
        const project = findProject(service, params.documentationId);
        const files = [...project.files.values()].map((file) => ({
          path: file.path,
          title: file.title,
          size: Buffer.byteLength(file.content),
          updatedAt: file.updatedAt,
        }));
        return { body: { files } };
      },
    },
    {
      method: "POST",
      pattern: "/documentations/:documentationId/docs/paths",
      handle: ({ params, body }) => {
        const project = findProject(service, params.documentationId);
        const paths = readPaths(body);
        const missing = paths.filter((path) => !project.files.has(path));
        if (missing.length > 0) {
          throw textError(
            404,
            `File not found in documentation ${project.documentationId}: ${missing.join(", ")}. GET /documentations/${project.documentationId}/manifest lists the files.`,
          );
        }
        const files = paths.map((path) => {
          const file = project.files.get(path);
          return { path, title: file?.title ?? path, content: file?.content ?? "" };
        });
        return { body: { files } };
      },
    },
    {
      method: "POST",
      pattern: "/documentations/:documentationId/docs/paths/push",
      handle: ({ params, body }) => {
        const project = findProject(service, params.documentationId);
        const push = pushFiles(service, project, body);
        return {
          body: {
            files: push.files.map((file) => ({ path: file.path, status: file.status })),
            message: push.message,
          },
        };
      },
    },
  ];
}

function describeProject(project: Documentation): Record<string, unknown> {
  return {
    documentationId: project.documentationId,
    name: project.name,
    subdomain: project.subdomain,
    createdAt: project.createdAt,
  };
}

function createProject(service: DocsService, body: unknown): Documentation {
  const name = isJsonObject(body) ? body.name : undefined;
  if (typeof name !== "string" || name.trim() === "") {
    throw textError(400, 'Body must be {"name": "<project name>"} with a non-empty name.');
  }
  if (service.state.documentations.some((project) => project.name === name)) {
    throw textError(409, `A documentation named "${name}" already exists.`);
  }
  const project: Documentation = {
    documentationId: service.newId(),
    name,
    subdomain:
      name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-|-$/g, "") || "docs",
    createdAt: toRfc3339(service.now()),
    files: new Map(),
  };
  service.state.documentations.push(project);
  return project;
}

function findProject(service: DocsService, documentationId: string | undefined): Documentation {
  const project = service.state.documentations.find(
    (candidate) => candidate.documentationId === documentationId,
  );
  if (!project) {
    throw textError(
      404,
      `Documentation ${documentationId ?? ""} not found. GET /documentations lists the projects you can use.`,
    );
  }
  return project;
}

function readPaths(body: unknown): string[] {
  const paths = isJsonObject(body) ? body.paths : undefined;
  if (
    !Array.isArray(paths) ||
    paths.length === 0 ||
    !paths.every((path) => typeof path === "string" && path !== "")
  ) {
    throw textError(
      400,
      `Body must be {"paths": ["<file path>", ...]} with at least one non-empty path; got ${describeJsonValue(paths)} for paths.`,
    );
  }
  return paths as string[];
}

function pushFiles(service: DocsService, project: Documentation, body: unknown): DocsPush {
  if (!isJsonObject(body)) {
    throw textError(
      400,
      `Body must be {"files": [...], "message": "..."}; got ${describeJsonValue(body)}.`,
    );
  }
  const { files, message } = body;
  if (typeof message !== "string" || message.trim() === "") {
    throw textError(400, "message is required: a non-empty change message describing the push.");
  }
  if (!Array.isArray(files) || files.length === 0) {
    throw textError(400, "files must be a non-empty array of {path, title, content}.");
  }
  const problems: string[] = [];
  files.forEach((file, index) => {
    if (!isJsonObject(file)) {
      problems.push(`files[${index}] must be an object`);
      return;
    }
    if (!isSafePath(file.path)) {
      problems.push(
        `files[${index}].path must be a relative path without ".." (got ${describeJsonValue(file.path)})`,
      );
    }
    if (typeof file.content !== "string") problems.push(`files[${index}].content must be a string`);
    if (file.title !== undefined && typeof file.title !== "string") {
      problems.push(`files[${index}].title must be a string when given`);
    }
  });
  if (problems.length > 0) throw textError(400, `Nothing was pushed: ${problems.join("; ")}.`);

  const pushedAt = toRfc3339(service.now());
  const push: DocsPush = { documentationId: project.documentationId, message, pushedAt, files: [] };
  for (const file of files as { path: string; title?: string; content: string }[]) {
    const previous = project.files.get(file.path);
    const title = file.title?.trim() ? file.title : pageTitle(file.path, file.content);
    project.files.set(file.path, {
      path: file.path,
      title,
      content: file.content,
      updatedAt: pushedAt,
    });
    push.files.push({
      path: file.path,
      title,
      content: file.content,
      status: previous ? "updated" : "created",
      ...(previous ? { previousContent: previous.content } : {}),
    });
  }
  service.state.pushes.push(push);
  return push;
}

function isSafePath(path: unknown): path is string {
  return (
    typeof path === "string" &&
    path.trim() !== "" &&
    !path.startsWith("/") &&
    !path.includes("\\") &&
    !path.split("/").some((part) => part === ".." || part === "")
  );
}

function textError(status: number, message: string): SimulatorHttpError {
  return new SimulatorHttpError(status, status === 404 ? "not_found" : "invalid_request", message);
}
