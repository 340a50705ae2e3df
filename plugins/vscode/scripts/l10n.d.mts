/** Types of scripts/l10n.mjs (the tests import it). */
import type ts from 'typescript';

export const PLUGIN_DIR: string;
export const BUNDLE_PATH: string;
export function sourceFiles(srcDir?: string): ts.SourceFile[];
export function isL10nCall(call: ts.CallExpression): boolean;
export function where(node: ts.Node): string;
export function l10nCalls(files?: ts.SourceFile[]): { message: string | undefined; args: number; at: string }[];
export function bundleOf(calls?: { message: string | undefined }[]): Record<string, string>;
export function bundleText(bundle?: Record<string, string>): string;
