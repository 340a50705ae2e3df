/** The AI Art tokens of the Web API (the contract in @pfc/core is the source of truth). */
import { AI_ART_CHARACTERS, AI_ART_STYLES, AI_ART_TOKENS, type AiArtToken } from '@pfc/core';

export { AI_ART_CHARACTERS, AI_ART_STYLES, AI_ART_TOKENS, type AiArtToken };
export type AiArtStyle = (typeof AI_ART_STYLES)[number];
export type AiArtCharacter = (typeof AI_ART_CHARACTERS)[number];

export function isArtStyle(token: string): token is AiArtStyle {
  return (AI_ART_STYLES as readonly string[]).includes(token);
}

export function isArtCharacter(token: string): token is AiArtCharacter {
  return (AI_ART_CHARACTERS as readonly string[]).includes(token);
}
