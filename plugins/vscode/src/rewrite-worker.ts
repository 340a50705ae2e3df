// The worker thread of @pfc/batch's JPEG rewrites, bundled beside dist/extension.js, where the bundled
// batch code looks for it (`rewrite-worker.js` beside its own file).
import '@pfc/batch/rewrite-worker';
