/** AI upscaling: ESRGAN-slim on worker threads, Lanczos for the rest. */
export { upscaleRaster, AI_UPSCALE_MAX_INPUT_PIXELS, type UpscaleMode, type UpscaleMethod } from './upscale';
export { closeUpscaleWorkers } from './pool';
