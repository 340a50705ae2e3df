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

  it('after Escape the simulated Photoshop refuses DOM setters and history calls, and rolls the suspended step back as the scope throws', async () => {
    const { host, sim, doc } = setup();
    const refused: Record<string, unknown> = {};
    const run = host.ps.core.executeAsModal(async (context) => {
      const suspension = await context.hostControl.suspendHistory({ documentID: doc.id, name: 'PFC' });
      await play(host, 'create a layer', makePixelLayer('one'));
      sim.core.cancelCurrentModal(); // the user presses Escape in Photoshop's progress bar
      const layer = host.ps.app.activeDocument!.layers[0]!;
      const calls: Record<string, () => unknown> = {
        'a DOM setter': () => (layer.opacity = 50),
        suspendHistory: () => context.hostControl.suspendHistory({ documentID: doc.id, name: 'again' }),
        resumeHistory: () => context.hostControl.resumeHistory(suspension, true),
      };
      for (const [name, call] of Object.entries(calls)) refused[name] = await Promise.resolve().then(call).then(() => 'allowed', (err: Error) => err.message);
      throw new Error('stopped');
    }, { commandName: 'PFC' });
    await expect(run).rejects.toThrow('stopped');
    expect(refused).toEqual({ 'a DOM setter': 'User cancelled the operation', suspendHistory: 'User cancelled the operation', resumeHistory: 'User cancelled the operation' });
    expect(doc.layers.map((l) => [l.name, l.opacity ?? 100])).toEqual([['Background', 100]]);
    expect(doc.history.map((h) => h.name)).toEqual(['Open']);
  });

  it('waits for the modal state another plug-in holds, also on a Photoshop before 25.10 that ignores timeOut, and says so when it stays busy', async () => {
    const { host, sim } = setup();
    // Before 25.10 the option is unknown and the call fails at once: the plug-in retries itself.
    sim.core.retriesForTimeOut = false;
    sim.core.heldByOther = 'Other Plugin';
    // Busy is told by the error number 9: the simulated Photoshop speaks German, with nothing English to match.
    const refusal = await host.ps.core.executeAsModal(async () => undefined, { commandName: 'probe' }).catch((err: unknown) => err);
    expect(refusal).toMatchObject({ number: 9 });
    expect((refusal as Error).message).not.toMatch(/modal state|modal command/i);
    setTimeout(() => (sim.core.heldByOther = undefined), 700);
    await expect(inModal(host, 'PFC', async () => 'applied', { seconds: 5 })).resolves.toBe('applied');
    sim.core.heldByOther = 'Other Plugin';
    await expect(inModal(host, 'PFC', async () => 'applied', { seconds: 1 })).rejects.toThrow(/^Photoshop stayed busy with another plug-in or a dialog for 1 s.*Other Plugin/);
    // What could not be done is said as the caller tells it (reading a document: nothing was read or sent).
    await expect(inModal(host, 'PFC', async () => 'read', { seconds: 1, notDone: 'nothing was read or sent' }))
      .rejects.toThrow(/^Photoshop stayed busy with another plug-in or a dialog for 1 s, so nothing was read or sent \(.*Other Plugin.*\); close the dialog/);
    // Without a wait, Photoshop's refusal comes as it is.
    await expect(inModal(host, 'PFC', async () => 'applied')).rejects.toMatchObject({ number: 9 });
  });

  it('does not wait on a failure that is not Photoshop being busy, even one whose text speaks of a modal state', async () => {
    const { host } = setup();
    let tries = 0;
    const failing = inModal(host, 'PFC', async () => {
      tries++;
      throw new Error('Photoshop is not in a modal state: call executeAsModal first');
    }, { seconds: 5 });
    await expect(failing).rejects.toThrow(/^Photoshop is not in a modal state/);
    expect(tries).toBe(1);
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

  it('the simulated imaging API reads pixels, a mask and the selection in a modal scope only (the stricter reading of its docs)', async () => {
    const { host, doc } = setup();
    const layerID = doc.layers[0]!.id;
    doc.layers[0]!.mask = new Uint8Array(16).fill(255);
    doc.selection = new Uint8Array(16).fill(255);
    const reads = {
      getPixels: () => host.ps.imaging.getPixels({ documentID: doc.id, colorSpace: 'RGB', componentSize: 8 }),
      getLayerMask: () => host.ps.imaging.getLayerMask({ documentID: doc.id, layerID, kind: 'user' }),
      getSelection: () => host.ps.imaging.getSelection({ documentID: doc.id }),
    };
    for (const [name, read] of Object.entries(reads)) {
      await expect(read(), name).rejects.toThrow('Photoshop is not in a modal state: call executeAsModal first');
      const got = await inModal(host, name, read);
      expect(got.imageData.width, name).toBe(4);
      await got.imageData.dispose();
    }
  });

  it('refuses to start while another plug-in holds the modal state', async () => {
    const { host, sim } = setup();
    sim.core.heldByOther = 'com.example.other';
    await expect(inModal(host, 'PFC', async () => 1)).rejects.toMatchObject({ number: 9, message: expect.stringContaining('com.example.other') });
  });
});
