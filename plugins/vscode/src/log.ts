/**
 * The "Perfectly Clear" log: a `LogOutputChannel` (VS Code adds the time and
 * level, and the user picks the level shown). One info line per file event;
 * per-path details (left-out files) at trace level. Every line passes through
 * a scrubber that masks the stored keys, so even an error message quoting a
 * request could not print one.
 */
import type * as vscode from 'vscode';

export class Log {
  private readonly secrets = new Set<string>();

  constructor(private readonly channel: Pick<vscode.LogOutputChannel, 'info' | 'trace' | 'error' | 'show'>) {}

  /**
   * Values to mask in every later line (the stored keys), added to those
   * already masked: a key replaced during a run is still the one that run's
   * requests carry. Short values are ignored: they would mask ordinary words.
   */
  addSecrets(values: readonly string[]): void {
    for (const v of values) if (v.length >= 6) this.secrets.add(v);
  }

  /** `text` with every stored key masked: what the log writes, and what an error notification may show. */
  mask(text: string): string {
    let out = text;
    for (const s of this.secrets) out = out.split(s).join('***');
    return out;
  }

  /** An info line. */
  line(text: string): void {
    this.channel.info(this.mask(text));
  }

  /** A detail, shown when the user sets the channel's level to Trace. */
  trace(text: string): void {
    this.channel.trace(this.mask(text));
  }

  error(text: string): void {
    this.channel.error(this.mask(text));
  }

  show(): void {
    this.channel.show(true);
  }
}
