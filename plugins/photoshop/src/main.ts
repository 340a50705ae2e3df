/**
 * Entry point of the panel. UXP provides `require` for its host modules; the
 * bundle keeps `photoshop` and `uxp` external and everything else inside.
 * Nothing here or in any module's top level may touch a global UXP lacks: a
 * throw at load happens before any handler and leaves the panel blank.
 */
import { uxpFetch } from './backend/fetch';
import type { Host, PhotoshopModule, UxpModule } from './host/types';
import { ensureAbortEvents } from './platform/abort';
import { Panel } from './ui/panel';

declare const require: (id: 'photoshop' | 'uxp') => unknown;

ensureAbortEvents();

const host: Host = {
  ps: require('photoshop') as PhotoshopModule,
  uxp: require('uxp') as UxpModule,
};

const panel = new Panel(host, { fetch: uxpFetch((input, init) => fetch(input, init)), store: localStorage });
panel.start().catch((err: unknown) => {
  const box = document.getElementById('message');
  if (box) {
    box.textContent = `The panel could not start: ${err instanceof Error ? err.message : String(err)}`;
    box.classList.remove('hidden');
  }
});
