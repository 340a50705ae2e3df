/** Retouching: blemish removal and glasses glare reduction on detected faces. */
export { removeBlemishes, skinLikelihood, type BoxFace } from './blemish';
export { findGlare, removeGlare, type EyeFace, type GlareFinding } from './glare';
