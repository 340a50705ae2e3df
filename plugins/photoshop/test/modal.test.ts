/** Modal scopes on the strict simulated host: Escape mid-scope, the global modal lock, rollback. */
import { describe, expect, it } from 'vitest';
import { CancelledError, inModal, inOneHistoryStep } from '../src/ps/modal';
import { play } from '../src/ps/commands';
import { makePixelLayer } from '../src/ps/descriptors';
import { simHost } from './helpers';

function setup() {
  const { host, sim } = simHost();
  const doc = sim.openDocument({ title: 'a.psd', width: 4, height: 4, pixels: new Uint8Array(48).fill(90), channels: 3 });
  return { host, sim, doc };
}

describe('modal scopes', () => {
  it('Escape in the middle of a step ends it as cancelled, with the document as it was and no history step', async () => {
    const { host, sim, doc } = setup();
    const run = inModal(host, 'PFC', (context) =>
      inOneHistoryStep(context, doc.id, 'PFC', undefined, async () => {
        await play(host, 'create a layer', makePixelLayer('one'));
        sim.core.cancelCurrentModal(); // the user presses Escape in Photoshop's progress bar
        await play(host, 'create a layer', makePixelLayer('two')); // Photoshop throws from here on
      }),
    );
    await expect(run).rejects.toBeInstanceOf(CancelledError);
    expect(doc.layers.map((l) => l.name)).toEqual(['Background']);
    expect(doc.history.map((h) => h.name)).toEqual(['Open']);
  });

  it('a resumeHistory that throws does not hide the error that stopped the step', async () => {
    const { host, doc } = setup();
    const run = inModal(host, 'PFC', (context) => {
      context.hostControl.resumeHistory = async () => {
        throw new Error('resume failed');
      };
      return inOneHistoryStep(context, doc.id, 'PFC', undefined, async () => {
        await play(host, 'create a layer', makePixelLayer('one'));
        throw new Error('the real reason');
      });
    });
    await expect(run).rejects.toThrow('the real reason');
    // Photoshop rolls back the still-suspended step as the scope ends by an exception.
    expect(doc.layers.map((l) => l.name)).toEqual(['Background']);
  });

  it('refuses to start while another plug-in holds the modal state', async () => {
    const { host, sim } = setup();
    sim.core.heldByOther = 'com.example.other';
    await expect(inModal(host, 'PFC', async () => 1)).rejects.toThrow(/modal state.*com\.example\.other/);
  });
});
