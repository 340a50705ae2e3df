/** The fields of a package.json the release reads. */
export interface PackageJson { name: string; version: string; private?: boolean; dependencies?: Record<string, string>; repository?: unknown; [key: string]: unknown }
export interface WorkspacePackage { dir: string; rel: string; pkg: PackageJson }
export const ROOT: string;
export function workspacePackages(root?: string): WorkspacePackage[];
export function publishedPackages(root?: string): WorkspacePackage[];
export function releaseInfo(root?: string): { version: string; repository: { type: string; url: string }; bugs: { url: string }; homepage: string };
export function expectedRepository(rel: string, root?: string): { type: string; url: string; directory: string };
export function checkRelease(root?: string): string[];
