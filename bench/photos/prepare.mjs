#!/usr/bin/env node
/**
 * Rebuilds the quality benchmark's photo set (bench/photos/{tune,heldout}/)
 * from Debian packages, offline from anything but Debian's archive:
 *
 *   mkdir /tmp/debs && cd /tmp/debs
 *   apt-get download mate-backgrounds plasma-workspace-wallpapers lomiri-wallpapers-16.04 \
 *     lomiri-wallpapers-20.04 python3-skimage python-matplotlib-data opencv-doc \
 *     scribus-template mypaint-data-extras enlightenment-data python3-sklearn tuxpaint-data \
 *     lxqt-themes gcompris-qt-data
 *   for f in *.deb; do mkdir -p "x/${f%%_*}"; dpkg -x "$f" "x/${f%%_*}"; done
 *   node bench/photos/prepare.mjs /tmp/debs/x [name ...]
 *
 * With names, only those photos are written (the others' packages need not
 * be there), so photos added later leave the existing files untouched.
 *
 * Each photo is downscaled (Lanczos) to about 0.35 megapixels and written as
 * JPEG q90 in sRGB. The split into tune and held-out sets is fixed by this
 * list (SPLIT below), decided before any figure was measured: the five
 * repository samples (tuned on before) plus every fourth of the others by
 * name are the tune set; the rest is held out and never tuned on. Photos
 * added later (ADDED_TUNE) go to the tune set only and stay out of that
 * count, so the held-out set never changes.
 * Licences: bench/photos/LICENSES.md (from each package's copyright file).
 */
import { mkdirSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateSync } from 'node:zlib';
import sharp from 'sharp';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MP = 0.35e6;

const MATE = 'mate-backgrounds/usr/share/backgrounds/mate/nature';
const KDE = 'plasma-workspace-wallpapers/usr/share/wallpapers';
const L16 = 'lomiri-wallpapers-16.04/usr/share/backgrounds';
const L20 = 'lomiri-wallpapers-20.04/usr/share/backgrounds';
const SKI = 'python3-skimage/usr/lib/python3/dist-packages/skimage/data';
const MPL = 'python-matplotlib-data/usr/share/matplotlib/mpl-data/sample_data';
const CV = 'opencv-doc/usr/share/doc/opencv-doc/examples/data';
const SCR = 'scribus-template/usr/share/scribus/templates';
const MYP = 'mypaint-data-extras/usr/share/mypaint/backgrounds';
const ENL = 'enlightenment-data/usr/share/enlightenment/data/backgrounds';
const SKL = 'python3-sklearn/usr/lib/python3/dist-packages/sklearn/datasets/images';
const TUX = 'tuxpaint-data/usr/share/tuxpaint/templates';
const LXQ = 'lxqt-themes/usr/share/lxqt/wallpapers';
/** GCompris keeps its activities' images in Qt resource archives (.rcc): `archive.rcc:path inside`. */
const GCQ = 'gcompris-qt-data/usr/share/gcompris-qt/rcc';
const GCA = 'gcompris/src/activities';

/** Output name → file inside the extracted packages. */
export const SOURCES = {
  'mate-aqua': `${MATE}/Aqua.jpg`,
  'mate-blinds': `${MATE}/Blinds.jpg`,
  'mate-dune': `${MATE}/Dune.jpg`,
  'mate-freshflower': `${MATE}/FreshFlower.jpg`,
  'mate-garden': `${MATE}/Garden.jpg`,
  'mate-greenmeadow': `${MATE}/GreenMeadow.jpg`,
  'mate-ladybird': `${MATE}/LadyBird.jpg`,
  'mate-raindrops': `${MATE}/RainDrops.jpg`,
  'mate-storm': `${MATE}/Storm.jpg`,
  'mate-twowings': `${MATE}/TwoWings.jpg`,
  'mate-wood': `${MATE}/Wood.jpg`,
  'mate-yellowflower': `${MATE}/YellowFlower.jpg`,
  'kde-bythewater': `${KDE}/BytheWater/contents/images/2560x1600.jpg`,
  'kde-coldripple': `${KDE}/ColdRipple/contents/images/2560x1600.jpg`,
  'kde-colorfulcups': `${KDE}/ColorfulCups/contents/images/2560x1600.jpg`,
  'kde-darkesthour': `${KDE}/DarkestHour/contents/images/2560x1600.jpg`,
  'kde-eveningglow': `${KDE}/EveningGlow/contents/images/2560x1600.jpg`,
  'kde-fallenleaf': `${KDE}/FallenLeaf/contents/images/2560x1600.jpg`,
  'kde-grey': `${KDE}/Grey/contents/images/2560x1600.jpg`,
  'kde-kite': `${KDE}/Kite/contents/images/2560x1600.jpg`,
  'kde-milkyway': `${KDE}/MilkyWay/contents/images/5120x2880.png`,
  'kde-path': `${KDE}/Path/contents/images/2560x1600.jpg`,
  'kde-shell': `${KDE}/Shell/contents/images/5120x2880.jpg`,
  'kde-summer1am': `${KDE}/summer_1am/contents/images/2560x1600.jpg`,
  'lomiri-aitzgorri': `${L16}/aitzgorri_by_Aitzol_Berasategi.jpg`,
  'lomiri-analogpattern': `${L16}/analogpattern_by_Peter_Nerlich.jpg`,
  'lomiri-bridge': `${L16}/Bridge_by_Sander_Klootwijk.jpg`,
  'lomiri-dragonfly': `${L16}/Dragonfly_by_Bolly.jpg`,
  'lomiri-free': `${L16}/free_by_Peter_Nerlich.jpg`,
  'lomiri-friends': `${L16}/friends_by_Aitzol_Berasategi.jpg`,
  'lomiri-life': `${L16}/life_by_Aitzol_Berasategi.jpg`,
  'lomiri-picosdeeuropa': `${L16}/picosdeeuropa_by_Aitzol_Berasategi.jpg`,
  'lomiri-picture0b': `${L16}/Picture_0B_by_freespace.jpg`,
  'lomiri-picture1a': `${L16}/Picture_1A_by_freespace.jpg`,
  'lomiri-seeding': `${L16}/seeding_by_Clements_Engelhardt.jpg`,
  'lomiri-sunset': `${L16}/sunset_by_Aitzol_Berasategi.jpg`,
  'lomiri-wine': `${L16}/Wine_by_Jakkub_Mede.jpg`,
  'lomiri-infinitesea': `${L20}/Infinite-Sea_by_Aury88.jpg`,
  'lomiri-kleiber': `${L20}/Kleiber_by_Lukas_Baubkus.jpg`,
  'skimage-hubble': `${SKI}/hubble_deep_field.jpg`,
  // The repository's samples (samples/), tuned on before this set existed.
  'skimage-astronaut': `${SKI}/astronaut.png`,
  'skimage-chelsea': `${SKI}/chelsea.png`,
  'skimage-coffee': `${SKI}/coffee.png`,
  'skimage-rocket': `${SKI}/rocket.jpg`,
  'mpl-gracehopper': `${MPL}/grace_hopper.jpg`,
  // Added to the tune set for kinds it lacked (pale scenes with soft blacks, a dark texture).
  'lomiri-greentock': `${L16}/greentock_by_Peter_Nerlich.jpg`,
  'kde-onestandsout': `${KDE}/OneStandsOut/contents/images/2560x1600.jpg`,
  'skimage-ihc': `${SKI}/ihc.png`,
  // Added in a second widening, for kinds the tune set still lacked: products and food on
  // white or colourful, architecture, animals, sport-like motion, aerial haze, night and dusk
  // skies, pale paper and cork textures, a red medical image.
  'cv-fruits': `${CV}/fruits.jpg`,
  'cv-baboon': `${CV}/baboon.jpg`,
  'cv-leuven': `${CV}/leuvenA.jpg`,
  'cv-squirrel': `${CV}/squirrel_cls.jpg`,
  'cv-aloe': `${CV}/aloeL.jpg`,
  'cv-board': `${CV}/board.jpg`,
  'cv-home': `${CV}/home.jpg`,
  'cv-smarties': `${CV}/smarties.png`,
  'cv-rubberwhale': `${CV}/rubberwhale1.png`,
  'cv-building': `${CV}/building.jpg`,
  'cv-butterfly': `${CV}/butterfly.jpg`,
  'cv-aero': `${CV}/aero1.jpg`,
  'cv-stuff': `${CV}/stuff.jpg`,
  'cv-book': `${CV}/ela_original.jpg`,
  'cv-car': `${CV}/licenseplate_motion.jpg`,
  'cv-graffiti': `${CV}/graf1.png`,
  'scribus-moon': `${SCR}/cal2/moon.jpg`,
  'scribus-pizza': `${SCR}/menu2/pizza.jpg`,
  'scribus-sunset': `${SCR}/br2/sunset.jpg`,
  'scribus-canyon': `${SCR}/br2/nature.jpg`,
  'mypaint-pastelpaper': `${MYP}/ramon/HR_PastelPaper 01.png`,
  'mypaint-roughpaper': `${MYP}/ramon/HR_RoughPaper.png`,
  'mypaint-cork': `${MYP}/ramon/HR_Cork.png`,
  'mypaint-greypaper': `${MYP}/mrmamurk/mamurk_a_1.png`,
  'skimage-retina': `${SKI}/retina.jpg`,
  // Added in a third widening, for kinds the tune set still lacked: storm, dusk and sunset
  // skies, snow with blue shadows, fog, low-key mountains at dusk, night lanterns, foliage
  // against a blue sky, and an outdoor building under a blue sky.
  'enl-bamboo': `${ENL}/Bamboo.edj`,
  'enl-foggytrees': `${ENL}/Foggy-Trees.edj`,
  'enl-godrays': `${ENL}/God-Rays.edj`,
  'enl-greenmaple': `${ENL}/Green-Maple.edj`,
  'enl-lichen': `${ENL}/Lichen-Branches.edj`,
  'enl-mountain': `${ENL}/Mountain.edj`,
  'enl-peaks': `${ENL}/Peaks.edj`,
  'enl-redmaple': `${ENL}/Red-Maple.edj`,
  'enl-lanterns': `${ENL}/Sea-of-Lanterns.edj`,
  'enl-snowtrees': `${ENL}/Snow-Trees.edj`,
  'enl-spruce': `${ENL}/Spruce-Needles.edj`,
  'enl-sunsetclouds': `${ENL}/Sunset-Clouds.edj`,
  'enl-whiteflower': `${ENL}/White-Flower.edj`,
  'enl-yellowflower': `${ENL}/Yellow-Flower.edj`,
  'sklearn-china': `${SKL}/china.jpg`,
  'sklearn-flower': `${SKL}/flower.jpg`,
  // Added in a fourth widening, for blue subjects the tune set lacked (sea, surf, jellyfish,
  // blue skies over land and a lighthouse) and more textures, meadows and skies: Tux Paint's
  // photo templates and the LXQt wallpapers credited to one photographer.
  'tux-burntbark': `${TUX}/burnt_bark.jpg`,
  'tux-cliff': `${TUX}/cliff.jpg`,
  'tux-cornmaze': `${TUX}/corn_maze.jpg`,
  'tux-jellyfish': `${TUX}/jellyfish.jpg`,
  'tux-lighthouse': `${TUX}/lighthouse.jpg`,
  'tux-mossybark': `${TUX}/mossy_bark.jpg`,
  'tux-mossylog': `${TUX}/mossy_log.jpg`,
  'tux-mudstone': `${TUX}/mudstone.jpg`,
  'tux-oceansplash': `${TUX}/ocean_splash.jpg`,
  'tux-oceanwaves': `${TUX}/ocean_waves.jpg`,
  'tux-redwoodsabove': `${TUX}/redwoods_above.jpg`,
  'tux-rocks': `${TUX}/rocks.jpg`,
  'tux-sheep': `${TUX}/sheep.jpg`,
  'tux-spidersweb': `${TUX}/spiders_web.jpg`,
  'tux-sunbehindclouds': `${TUX}/sun_behind_clouds.jpg`,
  'tux-sunbehindleaves': `${TUX}/sun_behind_leaves.jpg`,
  'tux-treesabove': `${TUX}/trees_above.jpg`,
  'tux-treesatdusk': `${TUX}/trees_at_dusk.jpg`,
  'tux-woolmillmachine': `${TUX}/wool_mill_machine.jpg`,
  'lxqt-afterrain': `${LXQ}/after-the-rain.jpg`,
  'lxqt-appleflower': `${LXQ}/appleflower.png`,
  'lxqt-beam': `${LXQ}/beam.png`,
  'lxqt-butterfly': `${LXQ}/butterfly.png`,
  'lxqt-drop': `${LXQ}/drop.png`,
  'lxqt-flowers': `${LXQ}/flowers.png`,
  'lxqt-fog': `${LXQ}/fog.jpg`,
  'lxqt-hills': `${LXQ}/this-is-not-windows.jpg`,
  // Added in a fifth widening, for naturally cool, low-saturation scenes the tune set lacked
  // (water under a grey sky, an Arctic sea, an overcast coast, snow, pale and deep water seen
  // underwater, a hazy lake) and, so that the set does not lean cool, warm and mixed ones
  // (desert sand, meerkats on red earth, a sandstone tower framed by blue sky): GCompris's photos.
  'gc-spoonbills': `${GCQ}/erase.rcc:${GCA}/erase/resource/spoonbills.webp`,
  'gc-dolphin': `${GCQ}/erase.rcc:${GCA}/erase/resource/dolphin.webp`,
  'gc-camels': `${GCQ}/erase.rcc:${GCA}/erase/resource/camels.webp`,
  'gc-meerkats': `${GCQ}/erase.rcc:${GCA}/erase/resource/meerkats.webp`,
  'gc-underwater': `${GCQ}/clickgame.rcc:${GCA}/clickgame/resource/sea1.webp`,
  'gc-narwhal': `${GCQ}/explore_world_animals.rcc:${GCA}/explore_world_animals/resource/animals/narwhal.webp`,
  'gc-polarbear': `${GCQ}/explore_world_animals.rcc:${GCA}/explore_world_animals/resource/animals/polar_bear.webp`,
  'gc-montstmichel': `${GCQ}/explore_monuments.rcc:${GCA}/explore_monuments/resource/france/montStMichel.webp`,
  'gc-goldentemple': `${GCQ}/explore_monuments.rcc:${GCA}/explore_monuments/resource/india/goldenTemple.webp`,
  'gc-qutubminar': `${GCQ}/explore_monuments.rcc:${GCA}/explore_monuments/resource/india/qutubMinar.webp`,
  // Added in a sixth widening, for warm scenes that are not casts (sunlit sandstone under a
  // blue sky, a cheetah in dry grass, a crocodile on mud in low evening sun): GCompris's photos.
  'gc-petra': `${GCQ}/explore_monuments.rcc:${GCA}/explore_monuments/resource/wonders/petra.webp`,
  'gc-cheetah': `${GCQ}/erase.rcc:${GCA}/erase/resource/cheetah.webp`,
  'gc-crocodile': `${GCQ}/explore_world_animals.rcc:${GCA}/explore_world_animals/resource/animals/crocodile.webp`,
};

const SAMPLES = new Set(['skimage-astronaut', 'skimage-chelsea', 'skimage-coffee', 'skimage-rocket', 'mpl-gracehopper']);

/** Photos added after the split was fixed: tune set only, never counted in the split. */
const ADDED_TUNE = new Set([
  'lomiri-greentock', 'kde-onestandsout', 'skimage-ihc',
  ...Object.keys(SOURCES).filter((n) => /^(cv|scribus|mypaint|enl|sklearn|tux|lxqt|gc)-/.test(n)),
  'skimage-retina',
]);

/** tune: the samples, the added photos and every fourth other photo by name; heldout: the rest. */
export const SPLIT = (() => {
  const others = Object.keys(SOURCES).filter((n) => !SAMPLES.has(n) && !ADDED_TUNE.has(n)).sort();
  const tune = new Set([...SAMPLES, ...ADDED_TUNE, ...others.filter((_, i) => i % 4 === 0)]);
  return Object.fromEntries(Object.keys(SOURCES).map((n) => [n, tune.has(n) ? 'tune' : 'heldout']));
})();

/**
 * A file's image: the file itself, or for an Enlightenment background (an Eet archive,
 * .edj) the largest JPEG stored in it — Eet keeps lossy images as plain JPEG streams, so
 * each one starts at a JPEG start-of-image marker and runs to the next —, or for
 * `archive.rcc:path` that file inside a Qt resource archive ({@link rccFile}).
 */
async function readSource(file) {
  const inRcc = file.match(/^(.*\.rcc):(.*)$/);
  if (inRcc) return rccFile(readFileSync(inRcc[1]), inRcc[2]);
  if (!file.endsWith('.edj')) return file;
  const bytes = readFileSync(file);
  const starts = [];
  for (let i = bytes.indexOf(JPEG_START); i >= 0; i = bytes.indexOf(JPEG_START, i + 1)) starts.push(i);
  let best;
  for (const [k, start] of starts.entries()) {
    const stream = bytes.subarray(start, starts[k + 1] ?? bytes.length);
    const size = await sharp(stream).metadata().then((m) => m.width * m.height, () => 0);
    if (size > (best?.size ?? 0)) best = { size, stream };
  }
  if (!best) throw new Error(`no JPEG image in ${file}`);
  return best.stream;
}

const JPEG_START = Buffer.from([0xff, 0xd8, 0xff]);

/**
 * One file of a Qt resource archive (.rcc, format 1–3): a header ("qres",
 * version, offsets of the tree, the data and the names), a tree of nodes
 * (name offset, flags, then a directory's child count and first child or a
 * file's locale and data offset; 8 more bytes of modification time from
 * version 2) and length-prefixed data, zlib-compressed behind a 4-byte size
 * when flag 1 is set. `inner`: the path inside, without the leading ":/".
 */
function rccFile(bytes, inner) {
  if (bytes.toString('latin1', 0, 4) !== 'qres') throw new Error('not a Qt resource archive');
  const [version, tree, data, names] = [4, 8, 12, 16].map((o) => bytes.readUInt32BE(o));
  const nodeSize = version >= 2 ? 22 : 14;
  const utf16be = (offset) => Buffer.from(bytes.subarray(names + offset + 6, names + offset + 6 + 2 * bytes.readUInt16BE(names + offset))).swap16().toString('utf16le');
  let node = 0;
  for (const part of inner.split('/')) {
    const at = tree + node * nodeSize;
    if (!(bytes.readUInt16BE(at + 4) & 2)) throw new Error(`${inner}: not found in the archive`);
    const count = bytes.readUInt32BE(at + 6);
    const first = bytes.readUInt32BE(at + 10);
    node = -1;
    for (let k = first; k < first + count && node < 0; k++) if (utf16be(bytes.readUInt32BE(tree + k * nodeSize)) === part) node = k;
    if (node < 0) throw new Error(`${inner}: not found in the archive`);
  }
  const at = tree + node * nodeSize;
  const flags = bytes.readUInt16BE(at + 4);
  if (flags & 2) throw new Error(`${inner}: a folder`);
  const start = data + bytes.readUInt32BE(at + 10);
  const blob = bytes.subarray(start + 4, start + 4 + bytes.readUInt32BE(start));
  if (flags & 4) throw new Error(`${inner}: zstd-compressed, not supported`);
  return flags & 1 ? inflateSync(blob.subarray(4)) : Buffer.from(blob);
}

async function main() {
  const root = process.argv[2];
  if (!root || !existsSync(root)) throw new Error('usage: node bench/photos/prepare.mjs <folder with the extracted packages> [name ...]');
  const only = process.argv.slice(3);
  const unknown = only.filter((n) => !(n in SOURCES));
  if (unknown.length) throw new Error(`no such photo: ${unknown.join(', ')}`);
  for (const set of ['tune', 'heldout']) mkdirSync(path.join(HERE, set), { recursive: true });
  for (const [name, rel] of Object.entries(SOURCES)) {
    if (only.length && !only.includes(name)) continue;
    const img = sharp(await readSource(path.join(root, rel)), { limitInputPixels: false }).rotate();
    const { width, height } = await img.metadata();
    const k = Math.min(1, Math.sqrt(MP / (width * height)));
    const out = path.join(HERE, SPLIT[name], `${name}.jpg`);
    await img
      .resize(Math.round(width * k), Math.round(height * k), { kernel: 'lanczos3' })
      .removeAlpha()
      .toColourspace('srgb')
      .jpeg({ quality: 90 })
      .toFile(out);
    console.log(`${SPLIT[name].padEnd(7)} ${name}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main().catch((e) => { console.error(e); process.exitCode = 1; });
