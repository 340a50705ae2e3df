/**
 * The "Perfectly Clear" Output channel: one line per file event, with time.
 * Every line passes through a scrubber that masks the stored keys, so even an
 * error message quoting a request could not print one.
 */
import type * as vscode from 'vscode';

export class Log {
  private secrets: string[] = [];

  constructor(private readonly channel: Pick<vscode.OutputChannel, 'appendLine' | 'show'>) {}

  /** Values to mask in every later line (the stored keys). Short values are ignored: they would mask ordinary words. */
  setSecrets(values: readonly string[]): void {
    this.secrets = values.filter((v) => v.length >= 6);
  }

  line(text: string): void {
    let out = text;
    for (const s of this.secrets) out = out.split(s).join('***');
    this.channel.appendLine(`[${new Date().toISOString().slice(11, 23)}] ${out}`);
  }

  show(): void {
    this.channel.show(true);
  }
}
