/**
 * From Human's face results to the Web API's face records. Pure: unit
 * tested on its own, used inside the vision worker.
 *
 * Units and ranges of a `FaceRecord` made here:
 * - `left`, `top`, `width`, `height`: the face box (brows to chin, cheek to
 *   cheek, from the 468-point face mesh), integer pixels of the image passed
 *   to `detectFaces`, clipped to the image.
 * - `leftEye`, `rightEye`: iris centres, pixels with one decimal. `leftEye` is
 *   the eye on the image's left for an upright face, i.e. the subject's right
 *   eye; so `leftEye.x < rightEye.x` for upright faces.
 * - `confidence`: the face detector's score, integer percent 0–100 (faces
 *   under 50 are not reported).
 * - `angle`: in-plane rotation (roll) of the eye line, integer degrees in
 *   −180…180; 0 = upright, positive = the head tilts clockwise on screen.
 * - `yawAngle`: head turn, integer degrees in −90…90 from the mesh's depth at
 *   the outer eye corners; 0 = frontal, positive = the face turns towards the
 *   image's right.
 * - `blink`: eye closure, integer 0–100 (0 = both eyes open, 100 = both shut;
 *   ≥ 50 means a blink), from lid gap over eye height, averaged over both eyes.
 * - `smile`: integer 0–100, the emotion model's "happy" probability in percent.
 */
import type { FaceRecord, Point } from '@pfc/core';

type P3 = [number, number, number?];

/** The parts of Human's `FaceResult` read here (coordinates in the detector's input pixels). */
export interface HumanFace {
  boxScore: number;
  box: [number, number, number, number];
  mesh: P3[];
  annotations: Record<string, (P3 | undefined)[] | undefined>;
  emotion?: { score: number; emotion: string }[];
}

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));
const deg = (rad: number): number => (rad * 180) / Math.PI;
const round1 = (v: number): number => Math.round(v * 10) / 10;

function mean(points: readonly P3[]): Point | undefined {
  if (points.length === 0) return undefined;
  let x = 0;
  let y = 0;
  for (const p of points) {
    x += p[0];
    y += p[1];
  }
  return { x: x / points.length, y: y / points.length };
}

/** Iris centre (mean of the iris points), else the eye contour's centre. `side` is the subject's side, as Human names it. */
function eye(face: HumanFace, side: 'left' | 'right'): Point | undefined {
  // Without the iris model (`boxesOnly`) the iris annotation lists mesh points that are absent.
  const points = (name: string) => (face.annotations[name] ?? []).filter((p): p is P3 => p !== undefined);
  return mean(points(`${side}EyeIris`)) ?? mean([...points(`${side}EyeUpper0`), ...points(`${side}EyeLower0`)]);
}

function dist(m: readonly P3[], i: number, j: number): number | undefined {
  const a = m[i];
  const b = m[j];
  return a && b ? Math.hypot(a[0] - b[0], a[1] - b[1]) : undefined;
}

/** Lid gap over eye height, as Human's own blink gesture measures it (< 0.2 is closed). */
function openness(m: readonly P3[], lid: [number, number], frame: [number, number]): number | undefined {
  const gap = dist(m, lid[0], lid[1]);
  const height = dist(m, frame[0], frame[1]);
  return gap !== undefined && height ? gap / height : undefined;
}

function blinkScore(m: readonly P3[]): number {
  const open = [openness(m, [374, 386], [443, 450]), openness(m, [145, 159], [223, 230])].filter((v): v is number => v !== undefined);
  if (open.length === 0) return 0;
  const r = open.reduce((s, v) => s + v, 0) / open.length;
  // r ≥ 0.3 wide open → 0; r ≤ 0.1 shut → 100; Human's threshold 0.2 → 50.
  return Math.round(clamp((0.3 - r) / 0.2, 0, 1) * 100);
}

function yaw(m: readonly P3[]): number {
  // 33: outer corner of the eye on the image's left; 263: on the image's right. Mesh z grows away from the camera.
  const a = m[33];
  const b = m[263];
  if (!a || !b) return 0;
  // Depth difference over the in-plane eye-corner distance, so a rolled (even sideways) head does not read as turned.
  return Math.round(clamp(deg(Math.atan2((b[2] ?? 0) - (a[2] ?? 0), Math.hypot(b[0] - a[0], b[1] - a[1]))), -90, 90));
}

/**
 * Converts one Human face. `scale` maps detector pixels to the caller's
 * image (the detector may run on a downscaled copy); `width`/`height` are the
 * caller's image size, for clipping. Undefined when the face has no eyes.
 */
export function toFaceRecord(face: HumanFace, scale: number, width: number, height: number): FaceRecord | undefined {
  // Human's "left" is the subject's left: on the image's right.
  const imageLeft = eye(face, 'right');
  const imageRight = eye(face, 'left');
  if (!imageLeft || !imageRight) return undefined;
  const [bx, by, bw, bh] = face.box;
  const left = clamp(Math.round(bx * scale), 0, width - 1);
  const top = clamp(Math.round(by * scale), 0, height - 1);
  const right = clamp(Math.round((bx + bw) * scale), left + 1, width);
  const bottom = clamp(Math.round((by + bh) * scale), top + 1, height);
  const leftEye = { x: round1(imageLeft.x * scale), y: round1(imageLeft.y * scale) };
  const rightEye = { x: round1(imageRight.x * scale), y: round1(imageRight.y * scale) };
  const happy = face.emotion?.find((e) => e.emotion === 'happy')?.score ?? 0;
  return {
    confidence: Math.round(clamp(face.boxScore, 0, 1) * 100),
    angle: Math.round(deg(Math.atan2(rightEye.y - leftEye.y, rightEye.x - leftEye.x))),
    blink: blinkScore(face.mesh),
    smile: Math.round(clamp(happy, 0, 1) * 100),
    yawAngle: yaw(face.mesh),
    left,
    top,
    width: right - left,
    height: bottom - top,
    leftEye,
    rightEye,
  };
}

/** Converts Human's faces, largest first. */
export function toFaceRecords(faces: readonly HumanFace[], scale: number, width: number, height: number): FaceRecord[] {
  return faces
    .map((f) => toFaceRecord(f, scale, width, height))
    .filter((f): f is FaceRecord => f !== undefined)
    .sort((a, b) => b.width * b.height - a.width * a.height);
}
