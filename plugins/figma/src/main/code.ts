/**
 * Entry of `dist/code.js`, run by Figma in its main-thread sandbox with the
 * `figma` and `__html__` globals (the built `ui.html`, inlined by Figma).
 */
import { startPlugin } from './plugin';

startPlugin(figma, __html__);
