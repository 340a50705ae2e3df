/**
 * The greyscale-to-RGB copy the Web API needs (see `RunOptions.rgbCopy`),
 * made with sharp: its own entry, so the engine's stays free of native modules.
 */
import sharp from 'sharp';
import { sharpRgbCopy } from './upload';

export const rgbCopy = sharpRgbCopy(sharp);
