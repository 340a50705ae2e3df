/** `pfc status <jobId>`: the job's status record. */
import { parse } from '../args';
import { STATUS_HELP } from '../help';
import { type CliIo, EXIT, UsageError } from '../io';
import { escapeControls } from '../terminal';
import { openWeb, WEB_FLAGS } from './web';

export async function statusCommand(argv: string[], io: CliIo): Promise<number> {
  const { values: v, positionals } = parse(argv, WEB_FLAGS, 'status');
  if (v.help) {
    io.stdout.write(STATUS_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError('pfc status takes one job id or status address (see: pfc status --help)');
  const { web } = await openWeb(io, v, 'status');
  const job = await web.jobs.status(positionals[0]!);
  if (v.json) {
    io.stdout.write(`${JSON.stringify(job)}\n`);
  } else {
    const lines = [
      `job ${job._id}: ${job.status}${job.statusText ? ` (${job.statusText})` : ''}`,
      job.correctedFile ? `result: ${job.correctedFile}` : '',
      job.timeTaken !== undefined ? `time taken: ${job.timeTaken} s` : '',
      job.originalDimensions ? `input: ${job.originalDimensions.width}×${job.originalDimensions.height}` : '',
      job.outputDimensions ? `output: ${job.outputDimensions.width}×${job.outputDimensions.height}` : '',
      job.createdAt ? `created: ${job.createdAt}` : '',
    ].filter(Boolean);
    io.stdout.write(`${lines.map((l) => escapeControls(l)).join('\n')}\n`);
  }
  return job.status === 'FAILED' || job.status === 'REJECTED' ? EXIT.failed : EXIT.ok;
}
