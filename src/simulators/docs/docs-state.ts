/** One file of a documentation project. */
export interface DocsFile {
  path: string;
  title: string;
  content: string;
  updatedAt: string;
}

/** A documentation project and its files, keyed by path. */
export interface Documentation {
  documentationId: string;
  name: string;
  subdomain: string;
  createdAt: string;
  files: Map<string, DocsFile>;
}

/** One accepted push, kept so tests can see what changed. */
export interface DocsPush {
  documentationId: string;
  message: string;
  pushedAt: string;
  files: {
    path: string;
    title: string;
    status: "created" | "updated";
    content: string;
    /** Content before the push; absent for a created file. */
    previousContent?: string;
  }[];
}

/** The user the bearer token belongs to. */
export interface DocsUser {
  id: string;
  email: string;
  name: string;
}

/** Everything the documentation simulator holds. Tests may read and change it. */
export interface DocsState {
  user: DocsUser;
  documentations: Documentation[];
  pushes: DocsPush[];
}
