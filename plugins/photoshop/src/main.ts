/**
 * Entry point of the panel. UXP provides `require` for its host modules; the
 * bundle keeps `photoshop` and `uxp` external and everything else inside.
 */
import { withBodyStreams } from './backend/fetch';
import type { Host, PhotoshopModule, UxpModule } from './host/types';
import { Panel } from './ui/panel';

declare const require: (id: 'photoshop' | 'uxp') => unknown;

const host: Host = {
  ps: require('photoshop') as PhotoshopModule,
  uxp: require('uxp') as UxpModule,
};

const panel = new Panel(host, { fetch: withBodyStreams((input, init) => fetch(input, init)), store: localStorage });
panel.start().catch((err: unknown) => {
  const box = document.getElementById('message');
  if (box) {
    box.textContent = `The panel could not start: ${err instanceof Error ? err.message : String(err)}`;
    box.classList.remove('hidden');
  }
});
