;; kernels.wat: a page helper's WebAssembly, the matrix products of
;; batched.js (nano-gpt's training step, in float32), four numbers at a
;; time (SIMD, f32x4). kernels.wasm is this file assembled (`make wasm`:
;; wasmtime's wat2wasm); tests/book/test_kernels.py holds the two equal
;; byte for byte, and the products to numpy's.
;;
;; gemm does every product the step needs:
;;   gemm(a, b, c, M, N, K, rs, ps, bs, cs, acc)
;;   C (M x N) = [C +] sum over p < K of A(r, p) B[p][:]
;; with B's rows bs floats apart and C's cs (N for whole matrices; more
;; for a part of a wider one), and A(r, p) the float at a + 4 (r rs + p
;; ps): A itself (rs = K, ps = 1) or its transpose (rs = 1, ps = M), so
;; that X W, and X^T D for a weight's gradient, are one code. a, b, c are
;; byte offsets in the exported memory; N is a multiple of 4.
;; Each sum adds its K products in the order of p, each product rounded
;; to float32 (no fused multiply-add): the same numbers on every machine.
;; gelu and gelu_backward do the MLP's GELU (tanh form) and its derivative,
;; four numbers at a time.
(module
  (memory (export "memory") 1)

  ;; C[r .. r+4][j .. j+8] from A's four rows at a (rs bytes apart, ps bytes
  ;; from one p to the next) and B's columns at b (bs bytes a row); cs: C's row
  (func $block4x8 (param $a i32) (param $b i32) (param $c i32) (param $K i32)
        (param $rs i32) (param $ps i32) (param $bs i32) (param $cs i32) (param $acc i32)
    (local $c00 v128) (local $c01 v128) (local $c10 v128) (local $c11 v128)
    (local $c20 v128) (local $c21 v128) (local $c30 v128) (local $c31 v128)
    (local $b0 v128) (local $b1 v128) (local $x v128) (local $rs2 i32) (local $rs3 i32)
    (local.set $rs2 (i32.add (local.get $rs) (local.get $rs)))
    (local.set $rs3 (i32.add (local.get $rs2) (local.get $rs)))
    (if (local.get $acc) (then
      (local.set $c00 (v128.load (local.get $c)))
      (local.set $c01 (v128.load offset=16 (local.get $c)))
      (local.set $c10 (v128.load (i32.add (local.get $c) (local.get $cs))))
      (local.set $c11 (v128.load offset=16 (i32.add (local.get $c) (local.get $cs))))
      (local.set $c20 (v128.load (i32.add (local.get $c) (i32.shl (local.get $cs) (i32.const 1)))))
      (local.set $c21 (v128.load offset=16 (i32.add (local.get $c) (i32.shl (local.get $cs) (i32.const 1)))))
      (local.set $c30 (v128.load (i32.add (local.get $c) (i32.mul (local.get $cs) (i32.const 3)))))
      (local.set $c31 (v128.load offset=16 (i32.add (local.get $c) (i32.mul (local.get $cs) (i32.const 3)))))))
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $K)))
        (local.set $b0 (v128.load (local.get $b)))
        (local.set $b1 (v128.load offset=16 (local.get $b)))
        (local.set $x (v128.load32_splat (local.get $a)))
        (local.set $c00 (f32x4.add (local.get $c00) (f32x4.mul (local.get $x) (local.get $b0))))
        (local.set $c01 (f32x4.add (local.get $c01) (f32x4.mul (local.get $x) (local.get $b1))))
        (local.set $x (v128.load32_splat (i32.add (local.get $a) (local.get $rs))))
        (local.set $c10 (f32x4.add (local.get $c10) (f32x4.mul (local.get $x) (local.get $b0))))
        (local.set $c11 (f32x4.add (local.get $c11) (f32x4.mul (local.get $x) (local.get $b1))))
        (local.set $x (v128.load32_splat (i32.add (local.get $a) (local.get $rs2))))
        (local.set $c20 (f32x4.add (local.get $c20) (f32x4.mul (local.get $x) (local.get $b0))))
        (local.set $c21 (f32x4.add (local.get $c21) (f32x4.mul (local.get $x) (local.get $b1))))
        (local.set $x (v128.load32_splat (i32.add (local.get $a) (local.get $rs3))))
        (local.set $c30 (f32x4.add (local.get $c30) (f32x4.mul (local.get $x) (local.get $b0))))
        (local.set $c31 (f32x4.add (local.get $c31) (f32x4.mul (local.get $x) (local.get $b1))))
        (local.set $a (i32.add (local.get $a) (local.get $ps)))
        (local.set $b (i32.add (local.get $b) (local.get $bs)))
        (local.set $K (i32.sub (local.get $K) (i32.const 1)))
        (br $next)))
    (v128.store (local.get $c) (local.get $c00))
    (v128.store offset=16 (local.get $c) (local.get $c01))
    (local.set $c (i32.add (local.get $c) (local.get $cs)))
    (v128.store (local.get $c) (local.get $c10))
    (v128.store offset=16 (local.get $c) (local.get $c11))
    (local.set $c (i32.add (local.get $c) (local.get $cs)))
    (v128.store (local.get $c) (local.get $c20))
    (v128.store offset=16 (local.get $c) (local.get $c21))
    (local.set $c (i32.add (local.get $c) (local.get $cs)))
    (v128.store (local.get $c) (local.get $c30))
    (v128.store offset=16 (local.get $c) (local.get $c31)))

  ;; C[r][j .. j+4] from one row of A: the rows left over, and the last
  ;; four columns when N is not a multiple of 8
  (func $block1x4 (param $a i32) (param $b i32) (param $c i32) (param $K i32)
        (param $ps i32) (param $bs i32) (param $acc i32)
    (local $s v128)
    (if (local.get $acc) (then (local.set $s (v128.load (local.get $c)))))
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $K)))
        (local.set $s (f32x4.add (local.get $s)
                                 (f32x4.mul (v128.load32_splat (local.get $a)) (v128.load (local.get $b)))))
        (local.set $a (i32.add (local.get $a) (local.get $ps)))
        (local.set $b (i32.add (local.get $b) (local.get $bs)))
        (local.set $K (i32.sub (local.get $K) (i32.const 1)))
        (br $next)))
    (v128.store (local.get $c) (local.get $s)))

  ;; C[r][j .. j+16] from one row of A: four independent sums, so that a
  ;; single row (the writer's next character) does not wait on one chain
  (func $block1x16 (param $a i32) (param $b i32) (param $c i32) (param $K i32)
        (param $ps i32) (param $bs i32) (param $acc i32)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128) (local $x v128)
    (if (local.get $acc) (then
      (local.set $s0 (v128.load (local.get $c)))
      (local.set $s1 (v128.load offset=16 (local.get $c)))
      (local.set $s2 (v128.load offset=32 (local.get $c)))
      (local.set $s3 (v128.load offset=48 (local.get $c)))))
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $K)))
        (local.set $x (v128.load32_splat (local.get $a)))
        (local.set $s0 (f32x4.add (local.get $s0) (f32x4.mul (local.get $x) (v128.load (local.get $b)))))
        (local.set $s1 (f32x4.add (local.get $s1) (f32x4.mul (local.get $x) (v128.load offset=16 (local.get $b)))))
        (local.set $s2 (f32x4.add (local.get $s2) (f32x4.mul (local.get $x) (v128.load offset=32 (local.get $b)))))
        (local.set $s3 (f32x4.add (local.get $s3) (f32x4.mul (local.get $x) (v128.load offset=48 (local.get $b)))))
        (local.set $a (i32.add (local.get $a) (local.get $ps)))
        (local.set $b (i32.add (local.get $b) (local.get $bs)))
        (local.set $K (i32.sub (local.get $K) (i32.const 1)))
        (br $next)))
    (v128.store (local.get $c) (local.get $s0))
    (v128.store offset=16 (local.get $c) (local.get $s1))
    (v128.store offset=32 (local.get $c) (local.get $s2))
    (v128.store offset=48 (local.get $c) (local.get $s3)))

  (func (export "gemm") (param $a i32) (param $b i32) (param $c i32) (param $M i32) (param $N i32)
        (param $K i32) (param $rs i32) (param $ps i32) (param $bs i32) (param $cs i32) (param $acc i32)
    (local $r i32) (local $j i32) (local $ar i32) (local $cr i32) (local $k i32)
    (local.set $rs (i32.shl (local.get $rs) (i32.const 2)))     ;; strides in bytes
    (local.set $ps (i32.shl (local.get $ps) (i32.const 2)))
    (local.set $bs (i32.shl (local.get $bs) (i32.const 2)))
    (local.set $cs (i32.shl (local.get $cs) (i32.const 2)))
    ;; four rows at a time, eight columns at a time
    (block $rows_done
      (loop $rows
        (br_if $rows_done (i32.gt_u (i32.add (local.get $r) (i32.const 4)) (local.get $M)))
        (local.set $ar (i32.add (local.get $a) (i32.mul (local.get $r) (local.get $rs))))
        (local.set $cr (i32.add (local.get $c) (i32.mul (local.get $r) (local.get $cs))))
        (local.set $j (i32.const 0))
        (block $cols_done
          (loop $cols
            (br_if $cols_done (i32.gt_u (i32.add (local.get $j) (i32.const 8)) (local.get $N)))
            (call $block4x8 (local.get $ar) (i32.add (local.get $b) (i32.shl (local.get $j) (i32.const 2)))
                  (i32.add (local.get $cr) (i32.shl (local.get $j) (i32.const 2)))
                  (local.get $K) (local.get $rs) (local.get $ps) (local.get $bs) (local.get $cs) (local.get $acc))
            (local.set $j (i32.add (local.get $j) (i32.const 8)))
            (br $cols)))
        (if (i32.lt_u (local.get $j) (local.get $N)) (then          ;; four columns left, four rows
          (local.set $k (i32.const 0))
          (loop $four
            (call $block1x4 (i32.add (local.get $ar) (i32.mul (local.get $k) (local.get $rs)))
                  (i32.add (local.get $b) (i32.shl (local.get $j) (i32.const 2)))
                  (i32.add (i32.add (local.get $cr) (i32.mul (local.get $k) (local.get $cs)))
                           (i32.shl (local.get $j) (i32.const 2)))
                  (local.get $K) (local.get $ps) (local.get $bs) (local.get $acc))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br_if $four (i32.lt_u (local.get $k) (i32.const 4))))))
        (local.set $r (i32.add (local.get $r) (i32.const 4)))
        (br $rows)))
    ;; the rows left over, one at a time, sixteen columns at a time, then four
    (block $tail_done
      (loop $tail
        (br_if $tail_done (i32.ge_u (local.get $r) (local.get $M)))
        (local.set $j (i32.const 0))
        (block $wide_done
          (loop $wide
            (br_if $wide_done (i32.gt_u (i32.add (local.get $j) (i32.const 16)) (local.get $N)))
            (call $block1x16 (i32.add (local.get $a) (i32.mul (local.get $r) (local.get $rs)))
                  (i32.add (local.get $b) (i32.shl (local.get $j) (i32.const 2)))
                  (i32.add (i32.add (local.get $c) (i32.mul (local.get $r) (local.get $cs)))
                           (i32.shl (local.get $j) (i32.const 2)))
                  (local.get $K) (local.get $ps) (local.get $bs) (local.get $acc))
            (local.set $j (i32.add (local.get $j) (i32.const 16)))
            (br $wide)))
        (block $cols_done
          (loop $cols
            (br_if $cols_done (i32.ge_u (local.get $j) (local.get $N)))
            (call $block1x4 (i32.add (local.get $a) (i32.mul (local.get $r) (local.get $rs)))
                  (i32.add (local.get $b) (i32.shl (local.get $j) (i32.const 2)))
                  (i32.add (i32.add (local.get $c) (i32.mul (local.get $r) (local.get $cs)))
                           (i32.shl (local.get $j) (i32.const 2)))
                  (local.get $K) (local.get $ps) (local.get $bs) (local.get $acc))
            (local.set $j (i32.add (local.get $j) (i32.const 4)))
            (br $cols)))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $tail))))
;; tanh to float32's precision (within 3e-7): a ratio of two polynomials
  ;; in x (odd over even), as Eigen's fast tanh for float; x clamped to
  ;; +-7.9053111 (where tanh is 1 to float32's precision)
  (func $tanh (param $x v128) (result v128)
    (local $x2 v128) (local $p v128) (local $q v128)
    (local.set $x (f32x4.min (f32x4.splat (f32.const 7.90531110763549805))
                             (f32x4.max (f32x4.splat (f32.const -7.90531110763549805)) (local.get $x))))
    (local.set $x2 (f32x4.mul (local.get $x) (local.get $x)))
    (local.set $p (f32x4.splat (f32.const -2.76076847742355e-16)))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $x2)) (f32x4.splat (f32.const 2.00018790482477e-13))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $x2)) (f32x4.splat (f32.const -8.60467152213735e-11))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $x2)) (f32x4.splat (f32.const 5.12229709037114e-08))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $x2)) (f32x4.splat (f32.const 1.48572235717979e-05))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $x2)) (f32x4.splat (f32.const 6.37261928875436e-04))))
    (local.set $p (f32x4.add (f32x4.mul (local.get $p) (local.get $x2)) (f32x4.splat (f32.const 4.89352455891786e-03))))
    (local.set $q (f32x4.splat (f32.const 1.19825839466702e-06)))
    (local.set $q (f32x4.add (f32x4.mul (local.get $q) (local.get $x2)) (f32x4.splat (f32.const 1.18534705686654e-04))))
    (local.set $q (f32x4.add (f32x4.mul (local.get $q) (local.get $x2)) (f32x4.splat (f32.const 2.26843463243900e-03))))
    (local.set $q (f32x4.add (f32x4.mul (local.get $q) (local.get $x2)) (f32x4.splat (f32.const 4.89352518554385e-03))))
    (f32x4.div (f32x4.mul (local.get $p) (local.get $x)) (local.get $q)))

  ;; y = GELU(x) = x (1 + tanh(c (x + 0.044715 x^3))) / 2 for the n numbers
  ;; at x (n a multiple of 4); the tanh kept at th for the backward pass
  (func (export "gelu") (param $x i32) (param $th i32) (param $y i32) (param $n i32) (param $c f32)
    (local $v v128) (local $t v128) (local $end i32)
    (local.set $end (i32.add (local.get $x) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $x) (local.get $end)))
        (local.set $v (v128.load (local.get $x)))
        (local.set $t (call $tanh (f32x4.mul (f32x4.splat (local.get $c))
          (f32x4.add (local.get $v) (f32x4.mul (f32x4.splat (f32.const 0.044715))
            (f32x4.mul (local.get $v) (f32x4.mul (local.get $v) (local.get $v))))))))
        (v128.store (local.get $th) (local.get $t))
        (v128.store (local.get $y) (f32x4.mul (f32x4.mul (f32x4.splat (f32.const 0.5)) (local.get $v))
                                              (f32x4.add (f32x4.splat (f32.const 1)) (local.get $t))))
        (local.set $x (i32.add (local.get $x) (i32.const 16)))
        (local.set $th (i32.add (local.get $th) (i32.const 16)))
        (local.set $y (i32.add (local.get $y) (i32.const 16)))
        (br $next))))

  ;; g *= GELU'(x) = (1 + th) / 2 + x (1 - th^2) c (1 + 3 0.044715 x^2) / 2,
  ;; for the n numbers at g (dL/dGELU(x) in, dL/dx out), x and th as gelu left them
  (func (export "gelu_backward") (param $x i32) (param $th i32) (param $g i32) (param $n i32) (param $c f32)
    (local $v v128) (local $t v128) (local $end i32) (local $half v128) (local $one v128)
    (local.set $end (i32.add (local.get $x) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $half (f32x4.splat (f32.const 0.5)))
    (local.set $one (f32x4.splat (f32.const 1)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $x) (local.get $end)))
        (local.set $v (v128.load (local.get $x)))
        (local.set $t (v128.load (local.get $th)))
        (v128.store (local.get $g) (f32x4.mul (v128.load (local.get $g))
          (f32x4.add (f32x4.mul (local.get $half) (f32x4.add (local.get $one) (local.get $t)))
            (f32x4.mul (f32x4.mul (local.get $half) (local.get $v))
              (f32x4.mul (f32x4.mul (f32x4.sub (local.get $one) (f32x4.mul (local.get $t) (local.get $t)))
                                    (f32x4.splat (local.get $c)))
                (f32x4.add (local.get $one)
                  (f32x4.mul (f32x4.splat (f32.const 0.134145)) (f32x4.mul (local.get $v) (local.get $v)))))))))
        (local.set $x (i32.add (local.get $x) (i32.const 16)))
        (local.set $th (i32.add (local.get $th) (i32.const 16)))
        (local.set $g (i32.add (local.get $g) (i32.const 16)))
        (br $next))))

  ;; e^x to float32's precision (within 2 ulp) for x <= 88: x = n ln 2 + f,
  ;; e^f a polynomial (Cephes' expf), 2^n put in the exponent's bits;
  ;; below -87 (where e^x < 2e-38) it returns e^-87
  (func $exp (param $x v128) (result v128)
    (local $n v128) (local $y v128)
    (local.set $x (f32x4.max (f32x4.splat (f32.const -87)) (f32x4.min (f32x4.splat (f32.const 88)) (local.get $x))))
    (local.set $n (f32x4.floor (f32x4.add (f32x4.mul (local.get $x) (f32x4.splat (f32.const 1.44269504088896341)))
                                          (f32x4.splat (f32.const 0.5)))))
    (local.set $x (f32x4.sub (local.get $x) (f32x4.mul (local.get $n) (f32x4.splat (f32.const 0.693359375)))))
    (local.set $x (f32x4.sub (local.get $x) (f32x4.mul (local.get $n) (f32x4.splat (f32.const -2.12194440e-4)))))
    (local.set $y (f32x4.splat (f32.const 1.9875691500e-4)))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (f32x4.splat (f32.const 1.3981999507e-3))))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (f32x4.splat (f32.const 8.3334519073e-3))))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (f32x4.splat (f32.const 4.1665795894e-2))))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (f32x4.splat (f32.const 1.6666665459e-1))))
    (local.set $y (f32x4.add (f32x4.mul (local.get $y) (local.get $x)) (f32x4.splat (f32.const 5.0000001201e-1))))
    (local.set $y (f32x4.add (f32x4.add (f32x4.mul (local.get $y) (f32x4.mul (local.get $x) (local.get $x))) (local.get $x))
                             (f32x4.splat (f32.const 1))))
    (f32x4.mul (local.get $y)
               (i32x4.shl (i32x4.add (i32x4.trunc_sat_f32x4_s (local.get $n)) (i32x4.splat (i32.const 127))) (i32.const 23))))

  ;; the four lanes' sum, in one order: (0 + 1) + (2 + 3)
  (func $sum4 (param $v v128) (result f32)
    (f32.add (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
             (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))

  ;; attention's softmax, in place, on `rows` rows of T scores at s (T a
  ;; multiple of 4): row r reads its first first + r + 1 scores (the keys up
  ;; to its own position), divided by scale, and the rest of the row is set
  ;; to 0. A row's numbers depend on that row alone (the writer's KV cache
  ;; relies on it).
  (func (export "softmax") (param $s i32) (param $rows i32) (param $T i32) (param $first i32) (param $scale f32)
    (local $n i32) (local $row i32) (local $at i32) (local $end i32) (local $max f32) (local $sum v128) (local $v v128)
    (local $lane v128) (local $total v128)
    (block $rows_done
      (loop $each_row
        (br_if $rows_done (i32.eqz (local.get $rows)))
        (local.set $n (i32.add (local.get $first) (i32.const 1)))
        (local.set $end (i32.add (local.get $s) (i32.shl (local.get $n) (i32.const 2))))
        ;; the largest score, four lanes at a time (pmax: one instruction;
        ;; lanes past the row's keys read as -inf), then the four's largest
        (local.set $v (v128.const f32x4 -inf -inf -inf -inf))
        (local.set $lane (v128.const i32x4 0 1 2 3))
        (local.set $at (local.get $s))
        (loop $max_loop
          (local.set $v (f32x4.pmax (local.get $v)
            (v128.bitselect (v128.load (local.get $at)) (v128.const f32x4 -inf -inf -inf -inf)
                            (i32x4.lt_s (local.get $lane) (i32x4.splat (local.get $n))))))
          (local.set $lane (i32x4.add (local.get $lane) (i32x4.splat (i32.const 4))))
          (local.set $at (i32.add (local.get $at) (i32.const 16)))
          (br_if $max_loop (i32.lt_u (local.get $at) (local.get $end))))
        (local.set $max (f32.max (f32.max (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
                                 (f32.max (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))
        ;; e = exp((score - max) / scale), four at a time; lanes past the row's keys 0
        (local.set $sum (v128.const f32x4 0 0 0 0))
        (local.set $lane (v128.const i32x4 0 1 2 3))
        (local.set $at (local.get $s))
        (loop $exp_loop
          (local.set $v (v128.and
            (call $exp (f32x4.div (f32x4.sub (v128.load (local.get $at)) (f32x4.splat (local.get $max)))
                                  (f32x4.splat (local.get $scale))))
            (i32x4.lt_s (local.get $lane) (i32x4.splat (local.get $n)))))
          (v128.store (local.get $at) (local.get $v))
          (local.set $sum (f32x4.add (local.get $sum) (local.get $v)))
          (local.set $lane (i32x4.add (local.get $lane) (i32x4.splat (i32.const 4))))
          (local.set $at (i32.add (local.get $at) (i32.const 16)))
          (br_if $exp_loop (i32.lt_u (local.get $at) (local.get $end))))
        ;; divided by their sum; zeros to the row's end
        (local.set $total (f32x4.splat (call $sum4 (local.get $sum))))
        (local.set $at (local.get $s))
        (loop $div_loop
          (v128.store (local.get $at) (f32x4.div (v128.load (local.get $at)) (local.get $total)))
          (local.set $at (i32.add (local.get $at) (i32.const 16)))
          (br_if $div_loop (i32.lt_u (local.get $at) (local.get $end))))
        (local.set $end (i32.add (local.get $s) (i32.shl (local.get $T) (i32.const 2))))
        (block $zeros_done
          (loop $zeros
            (br_if $zeros_done (i32.ge_u (local.get $at) (local.get $end)))
            (v128.store (local.get $at) (v128.const f32x4 0 0 0 0))
            (local.set $at (i32.add (local.get $at) (i32.const 16)))
            (br $zeros)))
        (local.set $s (local.get $end))
        (local.set $first (i32.add (local.get $first) (i32.const 1)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $each_row))))

  ;; LayerNorm of n rows of d numbers at x (d a multiple of 4), times
  ;; gamma plus beta, into out: (x - mean) / sqrt(variance + eps)
  (func (export "layernorm") (param $x i32) (param $out i32) (param $gamma i32) (param $beta i32)
        (param $n i32) (param $d i32) (param $eps f32)
    (local $j i32) (local $bytes i32) (local $acc v128) (local $v v128) (local $mu v128) (local $sd v128)
    (local.set $bytes (i32.shl (local.get $d) (i32.const 2)))
    (block $rows_done
      (loop $each_row
        (br_if $rows_done (i32.eqz (local.get $n)))
        (local.set $acc (v128.const f32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (loop $mean
          (local.set $acc (f32x4.add (local.get $acc) (v128.load (i32.add (local.get $x) (local.get $j)))))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br_if $mean (i32.lt_u (local.get $j) (local.get $bytes))))
        (local.set $mu (f32x4.splat (f32.div (call $sum4 (local.get $acc)) (f32.convert_i32_u (local.get $d)))))
        (local.set $acc (v128.const f32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (loop $variance
          (local.set $v (f32x4.sub (v128.load (i32.add (local.get $x) (local.get $j))) (local.get $mu)))
          (local.set $acc (f32x4.add (local.get $acc) (f32x4.mul (local.get $v) (local.get $v))))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br_if $variance (i32.lt_u (local.get $j) (local.get $bytes))))
        (local.set $sd (f32x4.splat (f32.sqrt (f32.add (f32.div (call $sum4 (local.get $acc)) (f32.convert_i32_u (local.get $d)))
                                                       (local.get $eps)))))
        (local.set $j (i32.const 0))
        (loop $scale
          (v128.store (i32.add (local.get $out) (local.get $j))
            (f32x4.add (f32x4.mul (f32x4.div (f32x4.sub (v128.load (i32.add (local.get $x) (local.get $j))) (local.get $mu))
                                             (local.get $sd))
                                  (v128.load (i32.add (local.get $gamma) (local.get $j))))
                       (v128.load (i32.add (local.get $beta) (local.get $j)))))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br_if $scale (i32.lt_u (local.get $j) (local.get $bytes))))
        (local.set $x (i32.add (local.get $x) (local.get $bytes)))
        (local.set $out (i32.add (local.get $out) (local.get $bytes)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $each_row))))

  ;; n rows of cols numbers at to (cols a multiple of 4): row r = the row r
  ;; at a plus the vector at v (the residual stream plus a bias)
  (func (export "add_rows") (param $to i32) (param $a i32) (param $v i32) (param $n i32) (param $cols i32)
    (local $j i32) (local $bytes i32)
    (local.set $bytes (i32.shl (local.get $cols) (i32.const 2)))
    (block $rows_done
      (loop $each_row
        (br_if $rows_done (i32.eqz (local.get $n)))
        (local.set $j (i32.const 0))
        (loop $each
          (v128.store (i32.add (local.get $to) (local.get $j))
                      (f32x4.add (v128.load (i32.add (local.get $a) (local.get $j)))
                                 (v128.load (i32.add (local.get $v) (local.get $j)))))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br_if $each (i32.lt_u (local.get $j) (local.get $bytes))))
        (local.set $to (i32.add (local.get $to) (local.get $bytes)))
        (local.set $a (i32.add (local.get $a) (local.get $bytes)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $each_row))))
)
