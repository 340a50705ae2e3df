/** Help texts. */
export const MAIN_HELP = `Usage: pfc <command> [options]

Batch image correction with Perfectly Clear: the hosted Web API, self-hosted
containers, or a local emulator (the default when nothing is configured).

Commands:
  correct <paths...>      correct photos and videos in files and folders
  presets <action>        list | get | create | delete | download custom presets
  status <jobId>          show a Web API job's status record
  emulator [options]      run the local emulator (same as pfc-emulator)
  help [command]          show help for a command

Options:
  -h, --help              show help
  -v, --version           show the version

Environment: PFC_API_KEY (Web API key), PFC_BASE_URL, PFC_CONTAINER_URL, PFC_BGR_URL,
PFC_BGR_LICENSE_KEY, NO_COLOR.
`;

export const CORRECT_HELP = `Usage: pfc correct <paths...> [options]

Correct every JPEG, PNG, MP4 and MOV file (recognised by content) in the given
files and folders (recursively). Hidden folders, the output folder and files
over the service's limits are left out, each with a reason.

Where results go (default: the tree mirrored under <folder>/corrected):
  -o, --out DIR            mirror the input tree under DIR
      --suffix S           write beside each input as <name>S<ext> (e.g. _pfc)
      --in-place           replace the inputs; originals are kept under
                           <folder>/.pfc-originals/

Backend (default auto: API key → web; container URL → container; else the
embedded emulator, started on 127.0.0.1 for this run):
      --backend B          auto | web | container | bgr | emulator
      --api-key KEY        Web API key (default: PFC_API_KEY); never printed.
                           Visible to every user of this machine in ps and kept
                           in shell history: prefer PFC_API_KEY or one of
      --api-key-file FILE  read the key from FILE (one line; - for stdin)
      --api-key-stdin      read the key from stdin (pipe or redirect it)
      --base-url URL       Web API base (default: PFC_BASE_URL or
                           https://api.perfectlyclear.io/v2)
      --container-url URL  colour-correction container (PFC_CONTAINER_URL)
      --container-input-dir DIR, --container-output-dir DIR
                           direct file access to the colour container (both
                           flags, with --container-url, without --bgr-url):
                           the local folders mounted as its /input and /output.
                           Images are copied in and read back there; only the
                           correction request goes over HTTP
      --bgr-url URL        background-removal container (PFC_BGR_URL); with
                           --container-url, backgrounds are removed after the
                           colour correction when removeBackground=true
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
      --json               one JSON object per line on stdout (file events and
                           a final {"type":"summary",...})
      --report FILE.html   write a before/after report page

Before anything is sent, the output folders must be writable and --preset must
name a built-in or an existing custom preset.

Exit codes: 0 all done, 1 some file failed or could not be read, 2 usage error
(unknown flag, invalid parameter, missing path, output folder not writable,
unknown preset), 130 interrupted (Ctrl-C, SIGTERM, SIGHUP; rerun to continue).
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
