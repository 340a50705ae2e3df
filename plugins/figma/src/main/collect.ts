/**
 * The selection walk: every image fill in the selected layers and their
 * descendants (frames, groups, components, instances, several fills per
 * layer), grouped by image hash so each distinct image is corrected once.
 */
import { planResize, type ResizeChoice } from '../shared/fit';
import { readImageHeader } from '../shared/image-header';
import type { ImageJob, Placement, SelectionSummary, Skip } from '../shared/messages';
import { hasChildren, hasFills, isInsideInstance, type FigmaApi } from './host';

/** One distinct image and the layers whose fills use it. */
export interface CollectedImage {
  hash: string;
  /** Ids of layers with at least one fill using the image. */
  nodeIds: Set<string>;
  nodeNames: string[];
  fillCount: number;
}

export interface Collection {
  images: Map<string, CollectedImage>;
  skipped: Skip[];
  /** Ids of the selected layers the run works on, and the images under each (for insert-as-copy). */
  roots: { id: string; hashes: Set<string> }[];
  layers: number;
}

function skip(node: SceneNode, reason: string): Skip {
  return { nodeId: node.id, nodeName: node.name, reason };
}

/** The layer and every descendant that has fills, each once. */
function layersWithFills(root: SceneNode): SceneNode[] {
  const below = hasChildren(root) ? root.findAll((n) => hasFills(n)) : [];
  return [root, ...below];
}

/**
 * Walk the selection. With `placement: 'copy'`, selected layers inside an
 * instance are skipped: a duplicate cannot be added there.
 */
export function collectSelection(figma: FigmaApi, placement: Placement = 'replace'): Collection {
  const images = new Map<string, CollectedImage>();
  const skipped: Skip[] = [];
  const roots: Collection['roots'] = [];
  const seen = new Set<string>();
  for (const root of figma.currentPage.selection) {
    if (placement === 'copy' && isInsideInstance(root)) {
      skipped.push(skip(root, 'is inside an instance, where a copy cannot be inserted; use "Replace in place" for it'));
      continue;
    }
    const hashes = new Set<string>();
    roots.push({ id: root.id, hashes });
    for (const node of layersWithFills(root)) {
      if (!hasFills(node)) continue;
      // A layer selected on its own and inside a selected frame is corrected once,
      // but its images still count for the frame's copy.
      const first = !seen.has(node.id);
      seen.add(node.id);
      const fills = node.fills;
      if (fills === figma.mixed) {
        if (first) skipped.push(skip(node, 'has mixed fills (text with several fill styles); left unchanged'));
        continue;
      }
      for (const paint of fills) {
        if (paint.type === 'VIDEO' && first) skipped.push(skip(node, 'has a video fill; only images can be corrected'));
        if (paint.type !== 'IMAGE') continue;
        if (!paint.imageHash) {
          if (first) skipped.push(skip(node, 'has an image fill without image data'));
          continue;
        }
        hashes.add(paint.imageHash);
        if (!first) continue;
        let entry = images.get(paint.imageHash);
        if (!entry) {
          entry = { hash: paint.imageHash, nodeIds: new Set(), nodeNames: [], fillCount: 0 };
          images.set(paint.imageHash, entry);
        }
        entry.fillCount += 1;
        if (!entry.nodeIds.has(node.id)) {
          entry.nodeIds.add(node.id);
          if (entry.nodeNames.length < 3) entry.nodeNames.push(node.name);
        }
      }
    }
  }
  return { images, skipped, roots, layers: seen.size };
}

/** Counts for the header; reads no image bytes. */
export function summarise(figma: FigmaApi): SelectionSummary {
  const c = collectSelection(figma);
  let fills = 0;
  for (const img of c.images.values()) fills += img.fillCount;
  return { layers: figma.currentPage.selection.length, images: c.images.size, fills };
}

function where(img: CollectedImage): string {
  const more = img.nodeIds.size - img.nodeNames.length;
  return img.nodeNames.join(', ') + (more > 0 ? ` and ${more} more` : '');
}

/**
 * Read each distinct image once: skip GIFs and formats the service does not
 * take, and plan a resize that keeps the output within Figma's 4096 px.
 */
export async function planImages(
  figma: FigmaApi,
  collection: Collection,
  resize: ResizeChoice,
): Promise<{ images: ImageJob[]; skipped: Skip[] }> {
  const images: ImageJob[] = [];
  const skipped: Skip[] = [];
  for (const img of collection.images.values()) {
    const firstId = img.nodeIds.values().next().value ?? '';
    const skipImage = (reason: string) => skipped.push({ nodeId: firstId, nodeName: where(img), reason });
    const image = figma.getImageByHash(img.hash);
    if (!image) {
      skipImage('image data is not available in this file');
      continue;
    }
    const bytes = await image.getBytesAsync();
    const header = readImageHeader(bytes);
    if (header.format === 'gif') {
      skipImage('is a GIF; the correction service takes JPEG and PNG only, so it was left unchanged');
      continue;
    }
    if (header.format !== 'png' && header.format !== 'jpeg') {
      skipImage(`is in a format the correction service does not take (${header.format}); JPEG and PNG only`);
      continue;
    }
    const size = header.width && header.height ? { width: header.width, height: header.height } : await image.getSizeAsync();
    const plan = planResize(resize, size);
    images.push({
      hash: img.hash,
      format: header.format,
      width: size.width,
      height: size.height,
      byteLength: bytes.byteLength,
      fillCount: img.fillCount,
      nodeCount: img.nodeIds.size,
      nodeNames: img.nodeNames,
      resize: plan.request,
      expected: plan.expected,
      notes: plan.notes,
    });
  }
  return { images, skipped };
}
