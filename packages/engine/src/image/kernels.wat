;; Per-pixel kernels of the engine's look, for one strip of pixels at a time
;; (see kernels.ts for the memory layout and the JavaScript each one matches).
;; Built to kernels-wasm.ts by `npm run build:kernels -w @pfc/engine`.
;;
;; Memory (bytes):
;;        0  three 256-entry channel look-up tables (R, G, B)
;;     1024  512 chroma factors, f64 (plain by max - min, then skin-like)
;;     8192  the strip's input pixels (RGB or RGBA, at most 16384 pixels)
;;    73728  the strip's output pixels
;;   139264  the strip's output luma, u16 (256 x Rec. 601 Y')
;;   172032  the sharpening curve's table, i16, 16384 entries
;;   204800  (unused)
;;   237568  the Gaussian's integer taps, i32, at most 16
;;   237632  the vertical pass's source rows (byte addresses), i32, at most 16
;;   262144  the curves pass's cache of results by colour, 65536 x (key i32, result i32)
;;   786432  the blur's rows (grown by kernels.ts to the image's width)
(module
  (memory (export "memory") 12)

  ;; applyPlan of colour/apply.ts on n pixels of ch (3 or 4) channels:
  ;; look-up tables, then (when $vibrance is not 0) the chroma factor, the
  ;; output pixels and their 16-bit luma.
  (func (export "curves") (param $n i32) (param $ch i32) (param $vibrance i32)
    (local $p i32) (local $in i32) (local $out i32)
    (local $r i32) (local $g i32) (local $b i32) (local $max i32) (local $min i32)
    (local $f f64) (local $y f64) (local $rg v128) (local $bb v128)
    (local $yv v128) (local $fv v128) (local $v v128) (local $fl v128)
    (local $zero v128) (local $top v128) (local $half v128) (local $one v128) (local $magic v128)
    (local $key i32) (local $slot i32) (local $packed i32)
    (local.set $in (i32.const 8192))
    (local.set $out (i32.const 73728))
    (local.set $zero (f64x2.splat (f64.const 0)))
    (local.set $top (f64x2.splat (f64.const 255)))
    (local.set $half (f64x2.splat (f64.const 0.5)))
    (local.set $one (f64x2.splat (f64.const 1)))
    (local.set $magic (f64x2.splat (f64.const 0x1p52)))
    (block $done
      (loop $pixel
        (br_if $done (i32.ge_u (local.get $p) (local.get $n)))
        (local.set $r (i32.load8_u (i32.load8_u (local.get $in))))
        (local.set $g (i32.load8_u offset=256 (i32.load8_u offset=1 (local.get $in))))
        (local.set $b (i32.load8_u offset=512 (i32.load8_u offset=2 (local.get $in))))
        (if (i32.eq (local.get $ch) (i32.const 4))
          (then (i32.store8 offset=3 (local.get $out) (i32.load8_u offset=3 (local.get $in)))))
        (if (local.get $vibrance)
          (then
            ;; A pixel's result depends only on its colour after the tables: a
            ;; direct-mapped cache of 65536 colours (key, then R | G << 8 | B << 16).
            (local.set $key (i32.or (i32.or (i32.shl (local.get $r) (i32.const 16)) (i32.shl (local.get $g) (i32.const 8)))
                                    (i32.or (local.get $b) (i32.const 0x1000000))))
            (local.set $slot (i32.add (i32.const 262144) (i32.shl (i32.shr_u (i32.mul (local.get $key) (i32.const 0x9E3779B1)) (i32.const 16)) (i32.const 3))))
            (if (i32.eq (i32.load (local.get $slot)) (local.get $key))
              (then
                (local.set $packed (i32.load offset=4 (local.get $slot)))
                (local.set $r (i32.and (local.get $packed) (i32.const 255)))
                (local.set $g (i32.and (i32.shr_u (local.get $packed) (i32.const 8)) (i32.const 255)))
                (local.set $b (i32.shr_u (local.get $packed) (i32.const 16))))
              (else
                (local.set $max
                  (select (select (local.get $r) (local.get $b) (i32.gt_u (local.get $r) (local.get $b)))
                          (select (local.get $g) (local.get $b) (i32.gt_u (local.get $g) (local.get $b)))
                          (i32.gt_u (local.get $r) (local.get $g))))
                (local.set $min
                  (select (select (local.get $r) (local.get $b) (i32.lt_u (local.get $r) (local.get $b)))
                          (select (local.get $g) (local.get $b) (i32.lt_u (local.get $g) (local.get $b)))
                          (i32.lt_u (local.get $r) (local.get $g))))
                ;; factors[(skin-like ? 256 : 0) + max - min]; skin-like: r > g > b and r - b < 170.
                (local.set $f
                  (f64.load offset=1024
                    (i32.shl
                      (i32.add
                        (i32.sub (local.get $max) (local.get $min))
                        (select (i32.const 256) (i32.const 0)
                          (i32.and
                            (i32.and (i32.gt_u (local.get $r) (local.get $g)) (i32.gt_u (local.get $g) (local.get $b)))
                            (i32.lt_s (i32.sub (local.get $r) (local.get $b)) (i32.const 170)))))
                      (i32.const 3))))
                ;; A grey pixel (max = min) has no chroma to scale.
                (if (i32.and (i32.ne (local.get $max) (local.get $min)) (f64.ne (local.get $f) (f64.const 1)))
                  (then
                    ;; luma8: 0.299 r + 0.587 g + 0.114 b, added left to right as in JavaScript.
                    (local.set $y
                      (f64.add
                        (f64.add
                          (f64.mul (f64.const 0.299) (f64.convert_i32_s (local.get $r)))
                          (f64.mul (f64.const 0.587) (f64.convert_i32_s (local.get $g))))
                        (f64.mul (f64.const 0.114) (f64.convert_i32_s (local.get $b)))))
                    (local.set $yv (f64x2.splat (local.get $y)))
                    (local.set $fv (f64x2.splat (local.get $f)))
                    ;; Two channels a vector: y + (c - y) f, clamped to 0..255, Math.round
                    ;; (floor, plus one when the fraction is at least a half; the fraction is
                    ;; exact at these magnitudes). Adding 2^52 leaves each integer in the low
                    ;; 32 bits of its lane (i32 lanes 0 and 2), cheaper than a conversion.
                    (local.set $rg (f64x2.add (local.get $magic)
                        (f64x2.add
                          (local.tee $fl (f64x2.floor (local.tee $v
                            (f64x2.pmax (local.get $zero) (f64x2.pmin (local.get $top)
                              (f64x2.add (local.get $yv) (f64x2.mul (f64x2.sub (f64x2.replace_lane 1 (f64x2.splat (f64.convert_i32_s (local.get $r))) (f64.convert_i32_s (local.get $g))) (local.get $yv)) (local.get $fv))))))))
                          (v128.and (f64x2.ge (f64x2.sub (local.get $v) (local.get $fl)) (local.get $half)) (local.get $one)))))
                    (local.set $bb (f64x2.add (local.get $magic)
                        (f64x2.add
                          (local.tee $fl (f64x2.floor (local.tee $v
                            (f64x2.pmax (local.get $zero) (f64x2.pmin (local.get $top)
                              (f64x2.add (local.get $yv) (f64x2.mul (f64x2.sub (f64x2.splat (f64.convert_i32_s (local.get $b))) (local.get $yv)) (local.get $fv))))))))
                          (v128.and (f64x2.ge (f64x2.sub (local.get $v) (local.get $fl)) (local.get $half)) (local.get $one)))))
                    (local.set $r (i32x4.extract_lane 0 (local.get $rg)))
                    (local.set $g (i32x4.extract_lane 2 (local.get $rg)))
                    (local.set $b (i32x4.extract_lane 0 (local.get $bb)))))
                (i32.store (local.get $slot) (local.get $key))
                (i32.store offset=4 (local.get $slot)
                  (i32.or (i32.or (local.get $r) (i32.shl (local.get $g) (i32.const 8))) (i32.shl (local.get $b) (i32.const 16))))))))
        (i32.store8 (local.get $out) (local.get $r))
        (i32.store8 offset=1 (local.get $out) (local.get $g))
        (i32.store8 offset=2 (local.get $out) (local.get $b))
        ;; LUMA16_WEIGHTS of image/sharpen.ts
        (i32.store16 offset=139264 (i32.shl (local.get $p) (i32.const 1))
          (i32.add (i32.add (i32.mul (local.get $r) (i32.const 77)) (i32.mul (local.get $g) (i32.const 150)))
                   (i32.mul (local.get $b) (i32.const 29))))
        (local.set $in (i32.add (local.get $in) (local.get $ch)))
        (local.set $out (i32.add (local.get $out) (local.get $ch)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $pixel))))

  ;; The detail of image/sharpen.ts, in place on one row of n pixels: the
  ;; curve's change for (luma - blurred) >> 3 added to R, G and B, clamped to
  ;; 0..255. Luma, blurred luma (u16) and pixels at the given byte addresses.
  (func (export "detailRow") (param $luma i32) (param $blurred i32) (param $px i32) (param $n i32) (param $ch i32)
    (local $p i32) (local $delta i32) (local $v i32)
    (block $done
      (loop $pixel
        (br_if $done (i32.ge_u (local.get $p) (local.get $n)))
        (local.set $delta
          (i32.load16_s offset=172032
            (i32.shl
              (i32.add
                (i32.shr_s
                  (i32.sub
                    (i32.load16_u (i32.add (local.get $luma) (i32.shl (local.get $p) (i32.const 1))))
                    (i32.load16_u (i32.add (local.get $blurred) (i32.shl (local.get $p) (i32.const 1)))))
                  (i32.const 3))
                (i32.const 8192))
              (i32.const 1))))
        (if (local.get $delta)
          (then
            (local.set $v (i32.add (i32.load8_u offset=0 (local.get $px)) (local.get $delta)))
            (i32.store8 offset=0 (local.get $px)
              (select (i32.const 0) (select (i32.const 255) (local.get $v) (i32.gt_s (local.get $v) (i32.const 255))) (i32.lt_s (local.get $v) (i32.const 0))))
            (local.set $v (i32.add (i32.load8_u offset=1 (local.get $px)) (local.get $delta)))
            (i32.store8 offset=1 (local.get $px)
              (select (i32.const 0) (select (i32.const 255) (local.get $v) (i32.gt_s (local.get $v) (i32.const 255))) (i32.lt_s (local.get $v) (i32.const 0))))
            (local.set $v (i32.add (i32.load8_u offset=2 (local.get $px)) (local.get $delta)))
            (i32.store8 offset=2 (local.get $px)
              (select (i32.const 0) (select (i32.const 255) (local.get $v) (i32.gt_s (local.get $v) (i32.const 255))) (i32.lt_s (local.get $v) (i32.const 0))))))
        (local.set $px (i32.add (local.get $px) (local.get $ch)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $pixel))))

  ;; libvips' integer convolution (convi.c, its C path for 16-bit images):
  ;; out = (sum of tap x value + scale / 2) / scale, in integers. The sums are
  ;; below 2^24 (kernels.ts checks 65535 x scale), so float32 holds them
  ;; exactly, and the float32 quotient, correctly rounded, truncates to the
  ;; integer quotient while 1 / scale exceeds half its ulp (scale < 256).
  (func $divide (param $sum v128) (param $half v128) (param $scale v128) (result v128)
    (i32x4.trunc_sat_f32x4_u
      (f32x4.div (f32x4.convert_i32x4_s (i32x4.add (local.get $sum) (local.get $half))) (local.get $scale))))

  ;; Horizontal pass of a separable Gaussian on one u16 row: $src holds the row
  ;; with (taps - 1) / 2 replicated edge values on each side, $dst gets n values.
  ;; Eight pixels at a time; up to seven past n are written (rows have room).
  (func (export "hblur") (param $src i32) (param $dst i32) (param $n i32) (param $taps i32) (param $scale i32)
    (local $x i32) (local $k i32) (local $at i32) (local $c v128) (local $lo v128) (local $hi v128) (local $half v128) (local $sc v128)
    (local.set $half (i32x4.splat (i32.shr_u (local.get $scale) (i32.const 1))))
    (local.set $sc (f32x4.splat (f32.convert_i32_u (local.get $scale))))
    (block $done
      (loop $eight
        (br_if $done (i32.ge_u (local.get $x) (local.get $n)))
        (local.set $lo (v128.const i32x4 0 0 0 0))
        (local.set $hi (v128.const i32x4 0 0 0 0))
        (local.set $at (i32.add (local.get $src) (i32.shl (local.get $x) (i32.const 1))))
        (local.set $k (i32.const 0))
        (loop $tap
          (local.set $c (i32x4.splat (i32.load offset=237568 (i32.shl (local.get $k) (i32.const 2)))))
          (local.set $lo (i32x4.add (local.get $lo) (i32x4.mul (v128.load16x4_u (local.get $at)) (local.get $c))))
          (local.set $hi (i32x4.add (local.get $hi) (i32x4.mul (v128.load16x4_u offset=8 (local.get $at)) (local.get $c))))
          (local.set $at (i32.add (local.get $at) (i32.const 2)))
          (br_if $tap (i32.lt_u (local.tee $k (i32.add (local.get $k) (i32.const 1))) (local.get $taps))))
        (v128.store (i32.add (local.get $dst) (i32.shl (local.get $x) (i32.const 1)))
          (i16x8.narrow_i32x4_u
            (call $divide (local.get $lo) (local.get $half) (local.get $sc))
            (call $divide (local.get $hi) (local.get $half) (local.get $sc))))
        (local.set $x (i32.add (local.get $x) (i32.const 8)))
        (br $eight))))

  ;; Vertical pass: $dst gets n values from the taps' source rows, whose byte
  ;; addresses are at 237632 (edge rows already repeated by the caller).
  ;; Eight pixels at a time, as the horizontal pass.
  (func (export "vblur") (param $dst i32) (param $n i32) (param $taps i32) (param $scale i32)
    (local $x i32) (local $k i32) (local $at i32) (local $c v128) (local $lo v128) (local $hi v128) (local $half v128) (local $sc v128)
    (local.set $half (i32x4.splat (i32.shr_u (local.get $scale) (i32.const 1))))
    (local.set $sc (f32x4.splat (f32.convert_i32_u (local.get $scale))))
    (block $done
      (loop $eight
        (br_if $done (i32.ge_u (local.get $x) (local.get $n)))
        (local.set $lo (v128.const i32x4 0 0 0 0))
        (local.set $hi (v128.const i32x4 0 0 0 0))
        (local.set $k (i32.const 0))
        (loop $tap
          (local.set $c (i32x4.splat (i32.load offset=237568 (i32.shl (local.get $k) (i32.const 2)))))
          (local.set $at (i32.add (i32.load offset=237632 (i32.shl (local.get $k) (i32.const 2))) (i32.shl (local.get $x) (i32.const 1))))
          (local.set $lo (i32x4.add (local.get $lo) (i32x4.mul (v128.load16x4_u (local.get $at)) (local.get $c))))
          (local.set $hi (i32x4.add (local.get $hi) (i32x4.mul (v128.load16x4_u offset=8 (local.get $at)) (local.get $c))))
          (br_if $tap (i32.lt_u (local.tee $k (i32.add (local.get $k) (i32.const 1))) (local.get $taps))))
        (v128.store (i32.add (local.get $dst) (i32.shl (local.get $x) (i32.const 1)))
          (i16x8.narrow_i32x4_u
            (call $divide (local.get $lo) (local.get $half) (local.get $sc))
            (call $divide (local.get $hi) (local.get $half) (local.get $sc))))
        (local.set $x (i32.add (local.get $x) (i32.const 8)))
        (br $eight))))
  ;; Grey-edge of colour/estimate.ts (p = 12) on an analysis copy, in three
  ;; steps per channel, on f64 planes at byte addresses the caller chose; the
  ;; same float64 operations in the same order as that JavaScript, so the
  ;; sums are the same to the last bit.

  ;; dst[i] = lut[px[i * ch + c]] (lut: 256 f64, linear light of each code).
  (func (export "edgePlane") (param $px i32) (param $ch i32) (param $c i32) (param $lut i32) (param $dst i32) (param $n i32)
    (local $i i32) (local $in i32)
    (local.set $in (i32.add (local.get $px) (local.get $c)))
    (block $done
      (loop $pixel
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (f64.store (i32.add (local.get $dst) (i32.shl (local.get $i) (i32.const 3)))
          (f64.load (i32.add (local.get $lut) (i32.shl (i32.load8_u (local.get $in)) (i32.const 3)))))
        (local.set $in (i32.add (local.get $in) (local.get $ch)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $pixel))))

  ;; Separable [1 2 1]/4 smoothing of a w x h f64 plane, edges replicated:
  ;; rows of $src into $tmp, then columns of $tmp into $dst; each value
  ;; (a + 2 b + c) / 4, added left to right as the JavaScript does. Two
  ;; values at a time (f64x2, the same operations per lane) where no edge
  ;; is repeated; the edges and a last odd value one at a time.
  (func (export "smooth") (param $src i32) (param $tmp i32) (param $dst i32) (param $w i32) (param $h i32)
    (local $x i32) (local $y i32) (local $row i32) (local $a i32) (local $up i32) (local $down i32)
    (local $two v128) (local $four v128)
    (local.set $two (f64x2.splat (f64.const 2)))
    (local.set $four (f64x2.splat (f64.const 4)))
    (block $rowsDone
      (loop $rows
        (br_if $rowsDone (i32.ge_u (local.get $y) (local.get $h)))
        (local.set $row (i32.mul (local.get $y) (local.get $w)))
        ;; x = 0 (its left neighbour repeated), then pairs while x + 1 has a right neighbour.
        (local.set $x (i32.const 0))
        (f64.store (i32.add (local.get $tmp) (i32.shl (i32.add (local.get $row) (local.get $x)) (i32.const 3)))
                (f64.div (f64.add (f64.add (f64.load (i32.add (local.get $src) (i32.shl (i32.add (local.get $row) (select (i32.sub (local.get $x) (i32.const 1)) (i32.const 0) (i32.gt_u (local.get $x) (i32.const 0)))) (i32.const 3)))) (f64.mul (f64.const 2) (f64.load (i32.add (local.get $src) (i32.shl (i32.add (local.get $row) (local.get $x)) (i32.const 3)))))) (f64.load (i32.add (local.get $src) (i32.shl (i32.add (local.get $row) (select (i32.add (local.get $x) (i32.const 1)) (i32.sub (local.get $w) (i32.const 1)) (i32.lt_u (i32.add (local.get $x) (i32.const 1)) (local.get $w)))) (i32.const 3))))) (f64.const 4)))
        (local.set $x (i32.const 1))
        (block $pairsDone
          (loop $pairs
            (br_if $pairsDone (i32.gt_u (i32.add (local.get $x) (i32.const 2)) (i32.sub (local.get $w) (i32.const 1))))
            (local.set $a (i32.add (local.get $src) (i32.shl (i32.add (local.get $row) (local.get $x)) (i32.const 3))))
            (v128.store (i32.add (local.get $tmp) (i32.shl (i32.add (local.get $row) (local.get $x)) (i32.const 3)))
              (f64x2.div (f64x2.add (f64x2.add (v128.load (i32.sub (local.get $a) (i32.const 8))) (f64x2.mul (local.get $two) (v128.load (local.get $a)))) (v128.load offset=8 (local.get $a))) (local.get $four)))
            (local.set $x (i32.add (local.get $x) (i32.const 2)))
            (br $pairs)))
        (block $xDone
          (loop $xs
            (br_if $xDone (i32.ge_u (local.get $x) (local.get $w)))
            (f64.store (i32.add (local.get $tmp) (i32.shl (i32.add (local.get $row) (local.get $x)) (i32.const 3)))
                (f64.div (f64.add (f64.add (f64.load (i32.add (local.get $src) (i32.shl (i32.add (local.get $row) (select (i32.sub (local.get $x) (i32.const 1)) (i32.const 0) (i32.gt_u (local.get $x) (i32.const 0)))) (i32.const 3)))) (f64.mul (f64.const 2) (f64.load (i32.add (local.get $src) (i32.shl (i32.add (local.get $row) (local.get $x)) (i32.const 3)))))) (f64.load (i32.add (local.get $src) (i32.shl (i32.add (local.get $row) (select (i32.add (local.get $x) (i32.const 1)) (i32.sub (local.get $w) (i32.const 1)) (i32.lt_u (i32.add (local.get $x) (i32.const 1)) (local.get $w)))) (i32.const 3))))) (f64.const 4)))
            (local.set $x (i32.add (local.get $x) (i32.const 1)))
            (br $xs)))
        (local.set $y (i32.add (local.get $y) (i32.const 1)))
        (br $rows)))
    (local.set $y (i32.const 0))
    (block $colsDone
      (loop $cols
        (br_if $colsDone (i32.ge_u (local.get $y) (local.get $h)))
        (local.set $row (i32.mul (local.get $y) (local.get $w)))
        (local.set $up (select (i32.sub (local.get $row) (local.get $w)) (i32.const 0) (i32.gt_u (local.get $y) (i32.const 0))))
        (local.set $down (select (i32.add (local.get $row) (local.get $w)) (local.get $row)
          (i32.lt_u (i32.add (local.get $y) (i32.const 1)) (local.get $h))))
        (local.set $x (i32.const 0))
        (block $pairsDone
          (loop $pairs
            (br_if $pairsDone (i32.gt_u (i32.add (local.get $x) (i32.const 2)) (local.get $w)))
            (v128.store (i32.add (local.get $dst) (i32.shl (i32.add (local.get $row) (local.get $x)) (i32.const 3)))
              (f64x2.div (f64x2.add (f64x2.add (v128.load (i32.add (local.get $tmp) (i32.shl (i32.add (local.get $up) (local.get $x)) (i32.const 3)))) (f64x2.mul (local.get $two) (v128.load (i32.add (local.get $tmp) (i32.shl (i32.add (local.get $row) (local.get $x)) (i32.const 3)))))) (v128.load (i32.add (local.get $tmp) (i32.shl (i32.add (local.get $down) (local.get $x)) (i32.const 3))))) (local.get $four)))
            (local.set $x (i32.add (local.get $x) (i32.const 2)))
            (br $pairs)))
        (if (i32.lt_u (local.get $x) (local.get $w))
          (then (f64.store (i32.add (local.get $dst) (i32.shl (i32.add (local.get $row) (local.get $x)) (i32.const 3)))
                (f64.div (f64.add (f64.add (f64.load (i32.add (local.get $tmp) (i32.shl (i32.add (local.get $up) (local.get $x)) (i32.const 3)))) (f64.mul (f64.const 2) (f64.load (i32.add (local.get $tmp) (i32.shl (i32.add (local.get $row) (local.get $x)) (i32.const 3)))))) (f64.load (i32.add (local.get $tmp) (i32.shl (i32.add (local.get $down) (local.get $x)) (i32.const 3))))) (f64.const 4)))))
        (local.set $y (i32.add (local.get $y) (i32.const 1)))
        (br $cols))))

  ;; Sum over inner pixels (row by row) not clipped (no channel of px at or
  ;; above $clip) of (dx^2 + dy^2)^6, central differences of the f64 plane $a.
  (func (export "edgeSum") (param $a i32) (param $px i32) (param $ch i32) (param $clip i32) (param $w i32) (param $h i32) (result f64)
    (local $y i32) (local $i i32) (local $end i32) (local $in i32) (local $addr i32)
    (local $dx f64) (local $dy f64) (local $s f64) (local $s3 f64) (local $sum f64)
    (local.set $y (i32.const 1))
    (block $rowsDone
      (loop $rows
        (br_if $rowsDone (i32.ge_s (local.get $y) (i32.sub (local.get $h) (i32.const 1))))
        (local.set $i (i32.add (i32.mul (local.get $y) (local.get $w)) (i32.const 1)))
        (local.set $end (i32.sub (i32.add (i32.mul (local.get $y) (local.get $w)) (local.get $w)) (i32.const 1)))
        (block $xDone
          (loop $xs
            (br_if $xDone (i32.ge_s (local.get $i) (local.get $end)))
            (local.set $in (i32.add (local.get $px) (i32.mul (local.get $i) (local.get $ch))))
            (if (i32.eqz (i32.or (i32.or
                  (i32.ge_u (i32.load8_u (local.get $in)) (local.get $clip))
                  (i32.ge_u (i32.load8_u offset=1 (local.get $in)) (local.get $clip)))
                  (i32.ge_u (i32.load8_u offset=2 (local.get $in)) (local.get $clip))))
              (then
                (local.set $addr (i32.add (local.get $a) (i32.shl (local.get $i) (i32.const 3))))
                (local.set $dx (f64.sub (f64.load offset=8 (local.get $addr)) (f64.load (i32.sub (local.get $addr) (i32.const 8)))))
                (local.set $dy (f64.sub (f64.load (i32.add (local.get $addr) (i32.shl (local.get $w) (i32.const 3))))
                                        (f64.load (i32.sub (local.get $addr) (i32.shl (local.get $w) (i32.const 3))))))
                (local.set $s (f64.add (f64.mul (local.get $dx) (local.get $dx)) (f64.mul (local.get $dy) (local.get $dy))))
                (local.set $s3 (f64.mul (f64.mul (local.get $s) (local.get $s)) (local.get $s)))
                (local.set $sum (f64.add (local.get $sum) (f64.mul (local.get $s3) (local.get $s3))))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $xs)))
        (local.set $y (i32.add (local.get $y) (i32.const 1)))
        (br $rows)))
    (local.get $sum))

  ;; Histograms of colour/histograms.ts over n pixels of ch channels at $px
  ;; into 256 u32 counts at $dst (zeroed here): $kind 0 max(R, G, B), 1 min,
  ;; 2 luma8 (0.299 R + 0.587 G + 0.114 B in float64, added left to right)
  ;; rounded as Math.round does (half up), at most 255.
  (func (export "histogram") (param $px i32) (param $ch i32) (param $n i32) (param $kind i32) (param $dst i32)
    (local $i i32) (local $r i32) (local $g i32) (local $b i32) (local $v i32) (local $y f64) (local $fl f64)
    (memory.fill (local.get $dst) (i32.const 0) (i32.const 1024))
    (block $done
      (loop $pixel
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $r (i32.load8_u (local.get $px)))
        (local.set $g (i32.load8_u offset=1 (local.get $px)))
        (local.set $b (i32.load8_u offset=2 (local.get $px)))
        (if (i32.eqz (local.get $kind))
          (then
            (local.set $v (select (local.get $r) (local.get $g) (i32.gt_u (local.get $r) (local.get $g))))
            (local.set $v (select (local.get $v) (local.get $b) (i32.gt_u (local.get $v) (local.get $b)))))
          (else
            (if (i32.eq (local.get $kind) (i32.const 1))
              (then
                (local.set $v (select (local.get $r) (local.get $g) (i32.lt_u (local.get $r) (local.get $g))))
                (local.set $v (select (local.get $v) (local.get $b) (i32.lt_u (local.get $v) (local.get $b)))))
              (else
                (local.set $y (f64.add (f64.add (f64.mul (f64.const 0.299) (f64.convert_i32_u (local.get $r)))
                                                (f64.mul (f64.const 0.587) (f64.convert_i32_u (local.get $g))))
                                       (f64.mul (f64.const 0.114) (f64.convert_i32_u (local.get $b)))))
                (local.set $fl (f64.floor (local.get $y)))
                (local.set $v (i32.add (i32.trunc_f64_u (local.get $fl))
                                       (f64.ge (f64.sub (local.get $y) (local.get $fl)) (f64.const 0.5))))
                (local.set $v (select (i32.const 255) (local.get $v) (f64.gt (local.get $y) (f64.const 255))))))))
        (local.set $v (i32.add (local.get $dst) (i32.shl (local.get $v) (i32.const 2))))
        (i32.store (local.get $v) (i32.add (i32.load (local.get $v)) (i32.const 1)))
        (local.set $px (i32.add (local.get $px) (local.get $ch)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $pixel))))
)
