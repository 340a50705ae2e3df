/** The repo's sample photos (samples/, public domain / CC0) the tests correct, in their nested layout. */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SAMPLES = resolve(dirname(fileURLToPath(import.meta.url)), '../../../samples');
export const SAMPLE_FILES = ['objects/chelsea.png', 'objects/coffee.jpg', 'outdoors/rocket.jpg', 'portraits/astronaut.jpg', 'portraits/grace_hopper.jpg'];
