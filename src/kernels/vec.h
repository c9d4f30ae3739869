/*
 * vec.h -- the vector vocabulary: one vector type and a small set of static inline operations,
 * implemented once per target (vec_scalar.h, vec_sse41.h, vec_avx2.h, vec_neon.h). Kernel
 * families are written once against it (see target.h for how a family is compiled per target).
 *
 * Types
 *   vf    SKS_W float lanes: scalar 4 (portable C), sse41 4, avx2 8, neon 4.
 *   vm    a lane mask from a comparison (every bit of a lane set or clear).
 *   vi    SKS_W int32 lanes.
 *   vd4   four doubles: one row of a float64 matrix (the float64 walks).
 *   SKS_ROWS = SKS_W / 4: a vf is also SKS_ROWS "rows" of 4 lanes (a joint-matrix row, a
 *   quaternion): 2 on avx2, 1 elsewhere. Row operations act on every row alike, which is how one
 *   kernel body works on several skeletons side by side (a row each) on avx2 and on one elsewhere.
 *   SKS_VEC_ALIGN: the byte alignment of a vf (16 or 32).
 *
 * Every operation is the IEEE float32 operation of the same name, correctly rounded, lane by
 * lane, with x86 semantics where targets differ (all targets reproduce them): no fused
 * multiply-add and no estimates anywhere, so a kernel written once gives bit-identical results on
 * every target for finite inputs (NaN payloads and signs may differ).
 *
 * Lanes
 *   vf_load(p), vf_store(p, v)             SKS_W floats, unaligned (_aligned: SKS_VEC_ALIGN)
 *   vf_load_n(p, n), vf_store_n(p, v, n)    the first n <= SKS_W lanes; reads/writes only
 *                                           p[0..n-1]; loaded lanes >= n are +0.0 (masked tails)
 *   vf_set1(x), vf_zero(), vf_first(v)      broadcast, +0.0, lane 0 as a float
 *   vf_add sub mul div sqrt                 IEEE
 *   vf_min(a, b), vf_max(a, b)              a < b ? a : b, a > b ? a : b (b when either is NaN)
 *   vf_neg(a), vf_abs(a)                    sign flipped, sign cleared (NaN too)
 *   vf_and or xor, vf_andnot(a, b)          bitwise; andnot is (~a) & b
 *   vf_lt le gt ge eq (ordered), vf_neq (unordered or different), vf_unordered -> vm
 *   vm_and or not, vm_andnot(a, b) = ~a & b, vm_first_n(n) (lanes < n set)
 *   vm_bits(m) (bit i = lane i), vm_any(m), vm_all(m)
 *   vf_select(m, a, b) = m ? a : b;  vf_if(m, a) = m ? a : +0.0;  vf_ifnot(m, a) = m ? +0.0 : a
 *   vf_round(v)                             nearest integer, ties to even (rintf; -0.3 -> -0.0)
 *
 * Rows (SKS_ROWS rows of 4 lanes per vf; lane indices are compile-time constants)
 *   vf_load_rows(p, stride), vf_store_rows(p, stride, v)
 *                                           row r at p + r * stride floats (ptrdiff_t: may be
 *                                           negative or 0; several skeletons or joints)
 *   vf_load_rows_n(p, n), vf_store_rows_n(p, v, n)
 *                                           n <= SKS_ROWS contiguous rows at p (rows of one
 *                                           matrix packed into vectors); loaded rows >= n are 0
 *   vf_broadcast_row(p)                     the 4 floats at p in every row
 *   vf_splat_in_rows(v, i)                  lane i of each row in all 4 lanes of that row
 *   vf_shuffle_in_rows(v, i0, i1, i2, i3)   lane k of each row = lane ik of that row
 *   vf_keep_lane3(v), vf_clear_lane3(v)     (0, 0, 0, v3) and (v0, v1, v2, 0) per row (+0.0)
 *   vf_transpose4_in_rows(&a, &b, &c, &d)   4x4 transpose within each row position
 *   vf_load_rows_count(p, stride, count), vf_store_rows_count(p, stride, v, count)
 *                                           only the first count <= SKS_ROWS row slots (loaded
 *                                           slots >= count are 0; nothing else read or written)
 *   vf_load_rows_xyz(p, stride, count), vf_store_rows_xyz(p, stride, v, count)
 *                                           the same with rows of 3 floats (3-vectors; lane 3
 *                                           loads as 0 and is not stored)
 *   vf_load_rows_xyz2(p, &a, &b), vf_store_rows_xyz2(p, a, b)
 *                                           2 SKS_ROWS contiguous 3-vectors at p (reads or
 *                                           writes exactly p[0 .. 6 SKS_ROWS - 1]): vector r of
 *                                           them in row slot r of a, SKS_ROWS + r in row slot r
 *                                           of b (lane 3 loads as 0 and is not stored); two row
 *                                           steps of points at once (twelve floats on avx2: two
 *                                           loads and two permutes)
 *   vf_load_rows2_count(p, stride, &a, &b, count), vf_store_rows2_count(p, stride, a, b, count)
 *                                           the first count <= SKS_ROWS row slots of 8 floats
 *                                           (a QTS joint) at p + r stride: floats 0-3 in slot r's
 *                                           row of a, 4-7 in its row of b (loaded slots >= count
 *                                           are 0; nothing else read or written)
 *   vf_set1_rows(p, stride)                 row r = p[r * stride] in all 4 lanes (a
 *                                           coordinate of one point per row slot)
 *   vf_transpose_rows(v)                    v[0..SKS_ROWS-1] as a SKS_ROWS x SKS_ROWS matrix of
 *                                           rows, transposed: row r of v[s] <-> row s of v[r]
 *                                           (one item's rows packed into vectors become one
 *                                           item per row slot; nothing on 1-row targets)
 *   vf_shuffle2_in_rows(a, b, i0, i1, i2, i3)
 *                                           per row: lanes 0, 1 = a's lanes i0, i1, lanes 2, 3 =
 *                                           b's lanes i2, i3 (SHUFPS; constants)
 *   vf_blend_in_rows(a, b, mask)            per row: lane k = bit k of mask ? b : a (mask a
 *                                           constant 0..15)
 *
 * Items (structure-of-arrays blocks). SKS_W items of 4 floats (quaternions, joint rows) loaded
 * as rows, 4 vectors of SKS_ROWS items each (vector k = items k SKS_ROWS + r, r < SKS_ROWS:
 * vf_load_rows(p + k SKS_ROWS step, step)), then vf_transpose4_in_rows: component c of every
 * item in one vector, lane l of row slot r holding item l * SKS_ROWS + r ("item order": the
 * identity on 4-lane targets, (0 2 4 6 | 1 3 5 7) on avx2). Transposing back and storing rows
 * undoes it. Per-item scalars follow the same order:
 *   vf_load_items(p), vf_store_items(p, v)  SKS_W consecutive floats <-> item order
 *   vf_load_items_n(p, n), vf_store_items_n(p, v, n)   the first n items only (tails)
 *   vm_first_items(n)                       the lanes holding items < n (vm_first_n in item order)
 *   vf_hsum4_in_rows(a, b, c, d)            lane k of each row = (v0 + v2) + (v1 + v3) of that
 *                                           row of the k-th argument: on the 4 vectors of a block
 *                                           of items in memory order (vector k = items
 *                                           k SKS_ROWS + r) one sum per item, in item order; with
 *                                           products of two blocks, their dot products in the
 *                                           pairwise order (x x' + z z') + (y y' + w w')
 *
 * Integers
 *   vi_load store set1 add sub and or, vi_shl(v, n) vi_shr(v, n) (logical, constant n),
 *   vi_eq vi_gt -> vm, vf_from_vi (round to nearest), vi_from_vf_trunc (in range only),
 *   vf_bits_from_vi / vi_bits_from_vf (bit casts)
 *
 * Doubles (four lanes: one row of a float64 matrix, or four skeletons side by side)
 *   vd4_from_floats(p) (4 floats widened), vd4_load/vd4_store (4 doubles),
 *   vd4_store_floats(p, v) (rounded to float32), vd4_set1(x), vd4_lane3(x) = (0, 0, 0, x),
 *   vd4_broadcast(p) = vd4_set1(*p), vd4_lane3_of(p) = vd4_lane3(*p) (loads from memory),
 *   vd4_add, vd4_sub, vd4_mul, vd4_div      IEEE
 *   vd4_select_gt(a, b, x, y)               a > b ? x : y (ordered: y when a or b is NaN)
 *   vd4_load_floats_transposed(r, p, stride)
 *                                           r[c] lane l = p[l * stride + c] widened (c, l < 4):
 *                                           four skeletons' rows side by side
 *   vd4_store_floats_transposed(p, stride, r)
 *                                           the inverse: p[l * stride + c] = float32(r[c] lane l)
 *
 * Bytes and float64 sums
 *   vi_load_u8(p), vi_load_u8_n(p, n)       SKS_W (the first n <= SKS_W) bytes at p zero-extended
 *                                           to int32 lanes; lanes >= n are 0, reads p[0..n-1]
 *                                           (per-vertex flags: vi_gt(vi_load_u8(p), vi_set1(0)))
 *   vnsum, vnsum_zero(), vnsum_sub(s, v), vnsum_value(s)
 *                                           -(sum of the lanes of every v) accumulated in float64
 *                                           (each lane widened exactly). The one operation whose
 *                                           bits depend on the target: the order of the float64
 *                                           additions is the target's own (scalar and neon: one
 *                                           running difference, s - v0 - v1 - ... in lane order;
 *                                           sse41: two partial sums of lanes 0, 2 and 1, 3;
 *                                           avx2: four partial sums of lanes i, i + 4, combined
 *                                           (p0 + p2) + (p1 + p3); x86 negates the sum once at
 *                                           the end, so a zero total is -0.0 there, +0.0 on
 *                                           scalar and neon). Exact whenever every partial sum
 *                                           is, e.g. for multiples of 2^-k of moderate size.
 *
 * Adding an operation: implement it in all four vec_<target>.h files with the same semantics
 * (scalar first: it is the definition), document it here, and add it to the bit-identity checks
 * in tests/native/vocab_check.c.
 */
#ifndef SKS_VEC_H
#define SKS_VEC_H

#include "simd.h"

#if defined(SKS_COMPILING_SCALAR)
#include "vec_scalar.h"
#elif defined(SKS_COMPILING_SSE41)
#include "vec_sse41.h"
#elif defined(SKS_COMPILING_AVX2)
#include "vec_avx2.h"
#elif defined(SKS_COMPILING_AVX512)
#include "vec_avx512.h"
#elif defined(SKS_COMPILING_NEON)
#include "vec_neon.h"
#else
#error "vec.h is for kernel family sources compiled per target (SKS_COMPILING_<TARGET>)"
#endif

#endif /* SKS_VEC_H */
