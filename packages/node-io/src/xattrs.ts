/**
 * Extended attributes: what file managers keep beside a file's bytes — macOS
 * Finder tags and comments (`com.apple.metadata:_kMDItemUserTags`), KDE
 * Dolphin's tags, ratings and comments (`user.xdg.tags`, `user.baloo.rating`,
 * `user.xdg.comment`), a download's origin, POSIX ACLs (`system.posix_acl_access`).
 * A file replaced by a new one (rename over it) loses them, so every copy or
 * replacement of a user's file that should stay "the same file" carries them
 * over here.
 *
 * Node has no API for them; `@napi-rs/xattr` (prebuilt for Linux, macOS and
 * FreeBSD, no build at install) is loaded on first use. Where it cannot be
 * loaded (Windows, whose NTFS streams are no xattrs; a bundle shipped without
 * it) there is nothing this process could read or write, and copies go on
 * without attributes.
 */
import { constants } from 'node:os';

/** The functions of `@napi-rs/xattr` used here. */
interface XattrModule {
  listAttributes(path: string): Promise<string[]>;
  getAttribute(path: string, name: string): Promise<Buffer | null>;
  setAttribute(path: string, name: string, value: Buffer): Promise<void>;
}

/**
 * Attributes that describe the file to the system rather than belong to it,
 * never copied: Linux `security.*` (an SELinux label is the policy's to give
 * the new file; a file capability on a photo is never meant) and the macOS
 * ones the kernel keeps from every process, root included, under System
 * Integrity Protection (setting one fails with EPERM): `com.apple.rootless`
 * (SIP's own mark), `com.apple.macl` (the sandbox's record of which apps the
 * user let open the file) and `com.apple.provenance` (Gatekeeper's).
 */
function isSystemOwned(name: string): boolean {
  return name.startsWith('security.') || MACOS_KERNEL_OWNED.has(name);
}

const MACOS_KERNEL_OWNED = new Set(['com.apple.rootless', 'com.apple.macl', 'com.apple.provenance']);

/** An attribute the source has that the destination could not be given: the copy is refused, not made without it. */
export class ExtendedAttributeError extends Error {
  override name = 'ExtendedAttributeError';
  constructor(
    readonly attribute: string,
    readonly path: string,
    readonly code: string | undefined,
    detail: string,
  ) {
    super(`could not give ${path} the extended attribute ${attribute} of the file it replaces or copies (${detail}); nothing was replaced`);
  }
}

let loading: Promise<XattrModule | undefined> | undefined;

/** `@napi-rs/xattr`, or undefined where it has no build for this platform or was not installed. */
function xattrModule(): Promise<XattrModule | undefined> {
  loading ??= import('@napi-rs/xattr').then(
    (m) => ((m as { default?: XattrModule }).default ?? (m as unknown as XattrModule)),
    () => undefined,
  );
  return loading;
}

/** Whether this process can read and write extended attributes at all (the module loads). */
export async function extendedAttributesAvailable(): Promise<boolean> {
  return (await xattrModule()) !== undefined;
}

/**
 * Give `to` every extended attribute of `from` (except the system's own, see
 * {@link isSystemOwned}); returns how many were copied. A source on a file
 * system without attributes, or no longer there, has none. An attribute `to` cannot take throws
 * {@link ExtendedAttributeError}: the caller's write is then not made, rather
 * than made without the user's tags. Call it before the file's mode makes it
 * read-only (setting a `user.*` attribute needs write permission).
 */
export async function copyExtendedAttributes(from: string, to: string): Promise<number> {
  const xattr = await xattrModule();
  if (!xattr) return 0;
  const names = await xattr.listAttributes(from).catch((err: unknown) => {
    if (NONE.has(errnoCode(err) ?? '')) return [];
    throw asErrnoError(err, from);
  });
  let copied = 0;
  for (const name of names) {
    if (isSystemOwned(name)) continue;
    const value = await xattr.getAttribute(from, name).catch((err: unknown) => {
      throw asErrnoError(err, from);
    });
    // Removed between the listing and the read: nothing to carry.
    if (value === null) continue;
    await xattr.setAttribute(to, name, value).catch((err: unknown) => {
      const code = errnoCode(err);
      throw new ExtendedAttributeError(name, to, code, code ? `${code}: ${messageOf(err)}` : messageOf(err));
    });
    copied++;
  }
  return copied;
}

/**
 * Listing errors that mean "no attributes to carry": the file system keeps
 * none, or the source is gone (deleted mid-run: the caller's own checks say
 * what that means for its write, as for a file deleted without attributes).
 */
const NONE = new Set(['ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'ENOENT']);

/** The errno name of an `@napi-rs/xattr` error, whose message ends in "(os error N)". */
function errnoCode(err: unknown): string | undefined {
  const number = /\(os error (\d+)\)/.exec(messageOf(err))?.[1];
  if (number === undefined) return undefined;
  const n = Number(number);
  return Object.entries(constants.errno).find(([, value]) => value === n)?.[0];
}

/** A Node-style error (`code`, `path`), so callers judge a missing or unreadable file as they judge any other. */
function asErrnoError(err: unknown, path: string): NodeJS.ErrnoException {
  const code = errnoCode(err);
  const error: NodeJS.ErrnoException = new Error(`${code ?? 'error'}: ${messageOf(err)}, reading the extended attributes of '${path}'`);
  if (code) error.code = code;
  error.path = path;
  return error;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
