/** Help texts. */
export const MAIN_HELP = `Usage: pfc <command> [options]

Batch image correction with Perfectly Clear: the hosted Web API, self-hosted
containers, or a local emulator (the default when nothing is configured).

Commands:
  correct <paths...>      correct photos and videos in files and folders
  restore <folder> [files...]
                          put back originals kept by \`correct --in-place\`
  presets <action>        list | get | create | delete | download custom presets
  status <jobId>          show a Web API job's status record
  emulator [options]      run the local emulator (same as pfc-emulator)
  help [command]          show help for a command

Options:
  -h, --help              show help
  -v, --version           show the version

Environment: PFC_API_KEY (Web API key), PFC_BASE_URL, PFC_CONTAINER_URL, PFC_BGR_URL,
PFC_INSTANCE_JOBS, PFC_BGR_LICENSE_KEY, NO_COLOR.
`;

export const CORRECT_HELP = `Usage: pfc correct <paths...> [options]

Correct every JPEG, PNG, MP4 and MOV file (recognised by content) in the given
files and folders (recursively). Hidden folders, the output folder, other
applications' folders (a Photos or Lightroom library, an app bundle, a drive's
recycle bin) and files over the service's limits are left out, each with a
reason; a folder given itself is corrected whatever it is.

Where results go (default: the tree mirrored under <folder>/corrected):
  -o, --out DIR            mirror the input tree under DIR (never the input
                           folder itself, also not through a symbolic link)
      --suffix S           write beside each input as <name>S<ext> (e.g. _pfc)
      --in-place           replace the inputs; every distinct original is kept
                           under <folder>/.pfc-originals/ (undo: pfc restore);
                           symbolic links are left out, never replaced
      --overwrite          also replace existing files pfc did not write

No-clobber: pfc replaces only files it wrote itself (its manifest records each
result's hash and the file still has it). An input whose result would replace
any other file is left alone and reported failed ("would overwrite a file pfc
did not write"), unless --overwrite is given. Two inputs never share a result:
a.png beside a.jpg becomes a.png.jpg; a clash that cannot be settled (also
one of case only, as on macOS and Windows) is reported with both names.
A photo pfc wrote itself (an earlier run's output folder given as input, a
folder corrected in place mirrored elsewhere, another suffix's results, a
result copied beside itself as "a_pfc copy.jpg", or back among the photos or
over its original) is not corrected twice: it is reported failed, naming its original, and not sent.

One run per output folder: a run holds the lock file .pfc-lock there (pid,
host, start time); a second run on the same folder says which process holds
it and exits 2, or waits with --wait. A lock left by a process that is gone
is taken over.

Backend (default auto: API key → web; container URL → container; else the
embedded emulator, started on 127.0.0.1 for this run):
      --backend B          auto | web | container | bgr | emulator
      --api-key KEY        Web API key (default: PFC_API_KEY); never printed.
                           Visible to every user of this machine in ps and kept
                           in shell history: prefer PFC_API_KEY or one of
      --api-key-file FILE  read the key from FILE (one line; - for stdin)
      --api-key-stdin      read the key from stdin (pipe or redirect it)
      --base-url URL       Web API base (default: PFC_BASE_URL or
                           https://api.perfectlyclear.io/v2); with --backend
                           emulator, a running emulator's (pfc emulator)
      --container-url URL  colour-correction container (PFC_CONTAINER_URL).
                           Repeat it (or separate URLs with commas, also in
                           PFC_CONTAINER_URL) for several instances: each file
                           goes to the healthy instance with the least work,
                           and moves to another if its instance fails
      --container-input-dir DIR, --container-output-dir DIR
                           direct file access to the colour container (both
                           flags, with --container-url, without --bgr-url):
                           the local folders mounted as its /input and /output.
                           Images are copied in and read back there; only the
                           correction request goes over HTTP
      --bgr-url URL        background-removal container (PFC_BGR_URL); with
                           --container-url, backgrounds are removed after the
                           colour correction when removeBackground=true.
                           Repeatable / comma-separated like --container-url;
                           each instance is activated with the licence key
      --instance-jobs N    files each container instance works on at once
                           (1-64, or auto; PFC_INSTANCE_JOBS). One value for
                           every instance, or one per instance in the order of
                           the URLs (colour first, then BGR), e.g. 4,2,2.
                           Default auto: chosen from each instance's measured
                           speed, from 2 up to 8 per colour instance and from
                           1 up to 4 per background-removal instance;
                           -j defaults to the sum of those most
      --bgr-license-key K  licence key of the BGR container
                           (PFC_BGR_LICENSE_KEY); never printed

Correction:
      --preset NAME        preset name (built-in group, custom preset, or none)
  -p, --param KEY=VALUE    any Web API parameter, repeatable
                           (e.g. -p outputType=jpg -p long=2048)

Run:
  -j, --concurrency N      jobs in the service at once; with the Web API and the
                           emulator as many files again upload ahead or download
                           (default: 4 web, 2 emulator/container)
      --job-timeout SECONDS
                           give up on a file whose job has no result after
                           SECONDS (above 0, up to 86400; default 1800); it is
                           reported failed and retried by the next run
      --force              redo files that are already up to date
  -y, --yes                do not ask before large runs on a paid backend
      --confirm-above N    ask before sending more than N files to a paid
                           backend (default 20)
      --json               one JSON object per line on stdout (file events,
                           up-to-date files as counts, and a final
                           {"type":"summary",...})
      --report FILE.html   write a before/after report page: a new file, or
                           one an earlier pfc report wrote (checked before
                           anything is sent); above 100 files its data goes
                           to FILE.files/ beside it
      --wait               wait for another run on the same output folder to
                           finish instead of exiting

Before anything is sent, the output folders must be writable and --preset must
name a built-in or an existing custom preset.

Exit codes: 0 all done, 1 some file failed or could not be read, 2 usage error
(unknown flag, invalid parameter, missing or empty path, unsafe --out or --report,
output folder locked by another run or not writable, unknown preset),
130 interrupted (Ctrl-C, SIGTERM, SIGHUP; rerun to continue). A file left alone
so as not to replace a file pfc did not write counts as failed.
`;

export const RESTORE_HELP = `Usage: pfc restore <folder> [files...] [--json]

Put back the originals that \`pfc correct --in-place\` kept in
<folder>/.pfc-originals/ and in those of folders below it (a subfolder
corrected in place on its own): every one, or those of the given files
(paths from the current folder, as <folder> is: pfc restore photos photos/a.jpg).

A file is replaced only while it is still pfc's corrected result (or is
missing), and gets its original back as it was: its bytes, modification time,
mode and owner (the owner as far as this user may give it; run as root to give
back another user's). A file changed since is left as is and reported, its
original stays in the backups. Backups are kept. Earlier distinct originals of
a name (an in-place run after a new photo was put under a corrected file's
name) are in .pfc-originals/.history/<name>/, named by content hash.

Exit codes: 0 all restored (or already the originals), 1 some file not restored
(each with its reason), 2 usage error or the folder is locked by a running pfc correct.
`;

export const PRESETS_HELP = `Usage: pfc presets <action> [options]

Custom presets of your Web API account (needs PFC_API_KEY, --api-key-file or
--api-key-stdin).

  pfc presets list                              name, id and description of each
  pfc presets get <presetId>                    the preset record (JSON)
  pfc presets create <file.preset> --name NAME [--description TEXT]
  pfc presets delete <presetId>
  pfc presets download <presetId> [--out FILE]  save the .preset file
                                                (default: <name>.preset)

Options: --api-key-file FILE, --api-key-stdin, --api-key KEY (visible in ps:
prefer PFC_API_KEY or a key file), --base-url URL, --json (list: JSON lines),
-h, --help
`;

export const STATUS_HELP = `Usage: pfc status <jobId|statusEndpoint> [--api-key-file FILE | --api-key-stdin] [--base-url URL] [--json]

Show the status record of a Web API job (GET /status/{jobId}?noRedirect=true).
Exit code 0 when the job exists, 1 when it failed or was rejected, 2 on usage errors.
`;
