/**
 * The greyscale-to-RGB copy the Web API needs (see `RunOptions.rgbCopy`),
 * made with sharp: its own entry, so the engine's stays free of native modules.
 */
import { withDecoderReason } from '@pfc/emulator/decoder-reason';
import sharp from 'sharp';
import { type RgbCopy, sharpRgbCopy } from './upload';

const copyWithSharp = sharpRgbCopy(sharp);

/**
 * A damaged file's copy fails with the decoder's reason even while other files are worked on: libvips keeps one
 * error buffer per process and sharp clears it after each operation, so the reason could come back "Unknown error".
 */
export const rgbCopy: RgbCopy = async (read, format, copy) => {
  try {
    return await copyWithSharp(read, format, copy);
  } catch (err) {
    throw await withDecoderReason(err, read);
  }
};
