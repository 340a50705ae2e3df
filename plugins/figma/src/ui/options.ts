/**
 * The options form's values and their translation into the service's `/pfc`
 * parameters. The parameter rules themselves live in `@pfc/core`; the UI
 * checks each image's parameters with the backend's `validate()` before upload.
 */
import { AI_ART_TOKENS, type AiArtToken, type PfcParams } from '@pfc/core';
import type { ResizeRequest } from '../shared/fit';
import type { RunOptions } from '../shared/run-options';

export { DEFAULT_OPTIONS, type BackgroundKind, type RunOptions } from '../shared/run-options';

/** Display names of the AI Art tokens (the token is what is sent). */
export const AI_ART_NAMES: Record<AiArtToken, string> = {
  pencilBw: 'Pencil (black & white)',
  oilPainting: 'Oil painting',
  cartoon: 'Cartoon',
  watercolor: 'Watercolour',
  softPastel: 'Soft pastel',
  comics: 'Comics',
  popArt: 'Pop art',
  vanGogh: 'Van Gogh',
  christmasnye: 'Christmas & New Year',
  stValentines: "St Valentine's",
  business: 'Business portrait',
  ffAdult: 'Fantasy (adult)',
  spring: 'Spring',
  ffKid: 'Fantasy (kid)',
  singlePirate: 'Pirate',
  groupPirate: 'Pirate group',
};

export function isAiArtToken(v: string): v is AiArtToken {
  return (AI_ART_TOKENS as readonly string[]).includes(v);
}

/**
 * The parameters of one image: the form's options plus the resize the main
 * thread planned to stay within Figma's 4096 px.
 */
export function toPfcParams(o: RunOptions, resize: ResizeRequest): PfcParams {
  const p: PfcParams = { preset: o.preset, ...resize };
  if (o.removeGlares) p.removeGlares = true;
  if (o.removeBlemish) p.removeBlemish = true;
  if (o.autocrop) p.autocrop = true;
  if (o.outputType !== 'auto') p.outputType = o.outputType;
  if (o.outputType === 'jpg') p.outputQuality = o.outputQuality;
  if (o.removeBackground) {
    p.removeBackground = true;
    // A transparent background needs PNG whatever else was chosen.
    if (o.background === 'transparent') p.outputType = 'png';
    else p.bgColor = o.bgColor;
    if (o.background === 'shadow') p.bgShadow = o.bgShadow;
  }
  if (o.aiArt) {
    if (!isAiArtToken(o.aiArt)) throw new Error(`AI Art style must be one of ${AI_ART_TOKENS.join(', ')} (got ${JSON.stringify(o.aiArt)})`);
    p.aiArt = o.aiArt;
    p.aiArtOutputSize = o.aiArtOutputSize;
  }
  return p;
}

/** One line describing the options, for the "Correct again" relaunch button. */
export function describeOptions(o: RunOptions): string {
  const parts = [o.preset === 'none' ? 'no colour correction' : `preset ${o.preset}`];
  if (o.removeBackground) {
    parts.push(o.background === 'transparent' ? 'background removed' : `background ${o.bgColor}${o.background === 'shadow' ? ` with ${o.bgShadow} shadow` : ''}`);
  }
  if (o.aiArt) parts.push(`AI Art ${isAiArtToken(o.aiArt) ? AI_ART_NAMES[o.aiArt] : o.aiArt}`);
  if (o.removeGlares) parts.push('glare removed');
  if (o.removeBlemish) parts.push('blemishes removed');
  if (o.autocrop) parts.push('auto crop');
  if (o.outputType !== 'auto') parts.push(o.outputType === 'jpg' ? `JPEG ${o.outputQuality}` : 'PNG');
  if (o.resize.kind === 'long') parts.push(`long edge ${o.resize.px} px`);
  if (o.resize.kind === 'scale') parts.push(`scaled ${o.resize.percent} %`);
  return `Perfectly Clear: ${parts.join(', ')}`;
}
