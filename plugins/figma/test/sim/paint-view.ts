/**
 * What a layer shows of an image fill, worked out from the paint as Figma
 * documents it (typings `ImagePaint`; https://developers.figma.com/docs/plugins/api/Paint),
 * so tests can check the picture on the canvas rather than the numbers the
 * plugin wrote:
 * - CROP: `imageTransform` "determines how the image is positioned (thus,
 *   cropped) within the layer": it maps the layer's unit square into the
 *   image's normalised coordinates, and that part of the image is stretched
 *   over the layer (a missing transform is the identity: the whole image);
 * - TILE: `scalingFactor` "determines the scaling (thus, repetition) of the
 *   image": each tile is the image at that factor times its pixel size;
 * - FILL and FIT: the image scaled by one factor to cover, or to fit inside,
 *   the layer (turned by `rotation`, in steps of 90°).
 */

export interface ImageView {
  /** Canvas units per image pixel along the image's x and y axes; equal when the image is not stretched. */
  pixel: { x: number; y: number };
  /** CROP: the part of the image the layer shows, in image pixels (its bounding box when turned). */
  shown?: { x: number; y: number; width: number; height: number };
  /** TILE: one tile on the canvas. */
  tile?: { width: number; height: number };
}

type Size = { width: number; height: number };

function cropView(layer: Size, transform: Transform, image: Size): ImageView {
  const [[a, b, c], [d, e, f]] = transform;
  // Layer pixels → image pixels: diag(W, H) · [[a, b], [d, e]] · diag(1/w, 1/h); its inverse's columns are
  // the canvas vectors of one image pixel along x and along y.
  const m = [
    [(image.width * a) / layer.width, (image.width * b) / layer.height],
    [(image.height * d) / layer.width, (image.height * e) / layer.height],
  ] as const;
  const det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
  const alongX = Math.hypot(m[1][1] / det, -m[1][0] / det);
  const alongY = Math.hypot(-m[0][1] / det, m[0][0] / det);
  const corners = [
    [0, 0],
    [1, 0],
    [0, 1],
    [1, 1],
  ].map(([u = 0, v = 0]) => [(a * u + b * v + c) * image.width, (d * u + e * v + f) * image.height] as const);
  const xs = corners.map(([x]) => x);
  const ys = corners.map(([, y]) => y);
  const shown = { x: Math.min(...xs), y: Math.min(...ys), width: Math.max(...xs) - Math.min(...xs), height: Math.max(...ys) - Math.min(...ys) };
  return { pixel: { x: alongX, y: alongY }, shown };
}

/** What `layer` shows of `paint`, an image fill whose image is `image` pixels. */
export function viewOf(layer: Size, paint: ImagePaint, image: Size): ImageView {
  switch (paint.scaleMode) {
    case 'CROP':
      return cropView(layer, paint.imageTransform ?? [[1, 0, 0], [0, 1, 0]], image);
    case 'TILE': {
      const k = paint.scalingFactor ?? 1;
      return { pixel: { x: k, y: k }, tile: { width: image.width * k, height: image.height * k } };
    }
    case 'FILL':
    case 'FIT': {
      const turned = ((paint.rotation ?? 0) / 90) % 2 !== 0;
      const [w, h] = turned ? [image.height, image.width] : [image.width, image.height];
      const k = (paint.scaleMode === 'FILL' ? Math.max : Math.min)(layer.width / w, layer.height / h);
      return { pixel: { x: k, y: k } };
    }
  }
}
