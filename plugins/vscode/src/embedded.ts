/**
 * The embedded emulator: with no key and no container configured, the
 * extension corrects on a local emulator of the Web API started inside the
 * extension host on 127.0.0.1 (first run that needs it), shared by every later
 * run of the window and stopped on deactivate.
 *
 * `@pfc/emulator` needs native modules (sharp) and the imaging engine's
 * models, which a platform-neutral .vsix cannot carry, so it is not bundled:
 * it is loaded at run time from a `node_modules` the extension can see — its
 * own folder or a parent (a platform package or a linked checkout), or a
 * folder on `NODE_PATH` (e.g. the global npm folder holding the `pfc` CLI).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type RgbCopy, sharpRgbCopy } from '@pfc/batch';
import type SharpModule from 'sharp';

/** What the extension uses of `@pfc/emulator`'s `startEmulator`. */
interface EmulatorModule {
  startEmulator(options: { host: string; container: boolean; bgr: boolean }): Promise<{ web: string; close(): Promise<void> }>;
}

/** The embedded emulator cannot be loaded in this installation. */
export class EmbeddedEmulatorUnavailableError extends Error {
  override name = 'EmbeddedEmulatorUnavailableError';
  constructor(searched: readonly string[]) {
    super(
      'the local emulator is not installed with this extension (it needs the @pfc/emulator package and its native modules; looked in '
      + `${searched.join(', ') || 'no folder'}). Run "Perfectly Clear: Set API Key", or start one with \`pfc emulator\` and set pfc.emulatorUrl.`,
    );
  }
}

/** Where `@pfc/emulator`'s entry would be, in lookup order: the extension's folder and its parents, then `NODE_PATH`. */
export function emulatorCandidates(extensionPath: string, nodePath = process.env.NODE_PATH ?? ''): string[] {
  const out: string[] = [];
  for (let dir = extensionPath; ; dir = dirname(dir)) {
    out.push(join(dir, 'node_modules', '@pfc', 'emulator', 'dist', 'index.js'));
    if (dirname(dir) === dir) break;
  }
  for (const entry of nodePath.split(delimiter).filter(Boolean)) out.push(join(entry, '@pfc', 'emulator', 'dist', 'index.js'));
  return out;
}

/** One emulator per window, started on first use. */
export class EmbeddedEmulator {
  private started: Promise<{ web: string; close(): Promise<void> }> | undefined;

  constructor(
    private readonly extensionPath: string,
    private readonly onStart: (webUrl: string) => void = () => undefined,
  ) {}

  /** The Web API base address (`http://127.0.0.1:PORT/v2`), starting the emulator if needed. */
  async url(): Promise<string> {
    this.started ??= this.start();
    try {
      return (await this.started).web;
    } catch (err) {
      this.started = undefined;
      throw err;
    }
  }

  private async start(): Promise<{ web: string; close(): Promise<void> }> {
    const { entry, searched } = this.installation();
    if (!entry) throw new EmbeddedEmulatorUnavailableError(searched.map((c) => dirname(dirname(c))));
    // A real ESM import (the package is ESM only); esbuild leaves a non-literal import() as it is.
    const mod = (await import(pathToFileURL(entry).href)) as EmulatorModule;
    // Only the Web API, on loopback; its control routes stay off.
    const emu = await mod.startEmulator({ host: '127.0.0.1', container: false, bgr: false });
    this.onStart(emu.web);
    return emu;
  }

  /**
   * The greyscale-to-RGB copy the Web API needs (batch's `rgbCopy`), made with the sharp the emulator's
   * installation carries, loaded when first used; undefined where there is none (a platform-neutral .vsix):
   * greyscale files then fail on the Web API, saying so.
   */
  rgbCopy(): RgbCopy | undefined {
    const { entry } = this.installation();
    if (!entry) return undefined;
    let copy: RgbCopy | undefined;
    return (...args) => {
      copy ??= sharpRgbCopy(createRequire(entry)('sharp') as typeof SharpModule);
      return copy(...args);
    };
  }

  /** `@pfc/emulator`'s entry, the first of the candidates that exists (looked up on each call: it may be installed later), and the candidates. */
  private installation(): { entry: string | undefined; searched: string[] } {
    const searched = emulatorCandidates(this.extensionPath);
    return { entry: searched.find((c) => existsSync(c)), searched };
  }

  /** Stop it (deactivate). Idempotent. */
  async dispose(): Promise<void> {
    const s = this.started;
    this.started = undefined;
    if (s) await s.then((e) => e.close(), () => undefined);
  }
}
