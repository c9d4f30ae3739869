/*
 * blend.c -- slerp, nlerp, blend_joints and blend_layers (see blend.h), written once against the
 * vector vocabulary. SKS_W pairs per block; quaternions stay in memory order (quat_aos in
 * quat_ops.h: per-pair dot products by an in-row reduction, per-pair weights spread back with one
 * shuffle per vector), and the tail of a batch runs the same block code with masked loads and
 * stores. Every target evaluates the same float32 operations in the same order (no FMA), so
 * results are bit-identical across targets on finite inputs.
 *
 * slerp, method "fast" (van Waveren, "Slerping Clock Cycles", section 5, "SlerpOptimized"), per
 * pair with c = dot(q0, q1):
 *     a   = min(|c|, 1)                   shortest arc: q1 is negated (w1 = -w1) when c < 0
 *     s2  = max((1 - a)(1 + a), 1e-14)    sin^2(omega); (1 - a)(1 + a) is exact-ish where the
 *                                         article's 1 - a^2 cancels
 *     s   = sqrt(s2)                      the article uses a Newton-refined rsqrt estimate; the
 *                                         correctly rounded sqrt and 1 / s keep the error bound
 *     omega = atan2(s, a)                 the article's ATanPositive: the smaller of (s, a) over
 *                                         the larger, degree-17 odd polynomial, + pi/2 when s > a
 *     w0  = sin((1 - t) omega) (1 / s),  w1 = sin(t omega) (1 / s)    the article's SinZeroHalfPI
 *                                         polynomial (degree 11, no range reduction for t in
 *                                         [0, 1]; a Cody-Waite reduction mod pi otherwise)
 *     out = w0 q0 + w1 q1                 (w0 q0_c) + (w1 q1_c) per component
 *   Both polynomials are evaluated in Estrin's scheme (see sin_poly) and 1 / s is formed once,
 *   off the critical path. One block is a long dependency chain (dot, sqrt, division,
 *   arctangent, sine): LOCKSTEP blocks run side by side, each stage a short loop over them.
 *   The article switches to linear weights when 1 - |c| <= 1e-6; that shortcut alone costs up to
 *   2.5e-7 (it drops the Omega^2 t (1 - t) / 2 term). Here no branch is needed: the weights'
 *   ratio is insensitive to the rounding of small angles and the 1e-14 floor keeps s > 0, so
 *   identical and (anti)parallel pairs give w0 = 1 - t, w1 = t up to rounding, never NaN.
 *   Error (unit inputs, t in [0, 1], any pair): <= 5e-7 max abs, 2.74e-7 measured over 8M pairs
 *   including near-parallel, identical and antipodal ones. For t outside [0, 1] the reduction
 *   keeps the result on the great circle (extrapolation), error <= 5e-7 max(1, |t|, |1 - t|)
 *   (2.6e-7 measured). A block with one t outside [0, 1] (or NaN) takes the reduction for all its
 *   lanes; for |x| <= pi/2 it is exactly the polynomial, so every lane gets the same bits.
 * slerp, method "exact": the careful trigonometric slerp, omega = 2 atan2(|q0 - q1'|, |q0 + q1'|)
 *   (accurate at every angle, unlike acos), w0 = sin((1 - t) omega) / sin(omega),
 *   w1 = sin(t omega) / sin(omega) (linear weights only when omega == 0), evaluated in double
 *   precision from the float32 inputs with libm and rounded once: the error is the final
 *   float32 rounding (<= 3e-7 contract, 6e-8 measured). A float32 libm version measured 2.4e-7,
 *   too close to the contract. libm is scalar: per element plain C on every target.
 * nlerp (the article's Lerp): v = (1 - t) q0 + (+-t) q1 (the sign of dot(q0, q1)), out =
 *   v (1 / sqrt(|v|^2)) (one division per quaternion, not one per component: the divider bound
 *   the loop); |v|^2 outside [1e-30, 1e30] takes sks_quat_normalize_scalar for that pair (|v| ==
 *   0 gives (0, 0, 0, 1)). Error <= 2e-7 (1.43e-7 measured over 8M special pairs, the same as
 *   with four divisions) for unit inputs.
 * Translation and scale (blend_joints): a + t (b - a), so equal inputs (e.g. unit scales) stay
 *   exact.
 * blend_layers: running hemisphere alignment (ozz-animation's rule): per layer l in order,
 *   w' = -w_l when dot(acc, q_l) < 0, acc = acc + w' q_l (components), ts = ts + w_l ts_l,
 *   total = total + w_l; out q = acc (1 / sqrt(dot(acc, acc))) (one division per quaternion,
 *   as nlerp: the divider bounds the loop; sks_quat_normalize_scalar outside [1e-30, 1e30]),
 *   out ts = ts (1 / total).
 * blend_layers_additive: blend_layers, then the additive layers (additive_ops.h's
 *   apply_rotations and apply_translations, the additive family's own steps) on each block of
 *   SKS_W joints while it is in registers: the quaternion sums are transposed to SoA in
 *   registers (what apply_additive's loads would give), normalised there (whole vectors scaled:
 *   no per-item splats, |acc|^2 without the in-row reduction, the same operations), the (t, s)
 *   sums stay in memory order, both get every additive layer in order and are stored
 *   once: one pass over memory (the layers and deltas read once, out written once) instead of a
 *   blend pass and one read-modify-write pass per additive layer, with the same bits. A block
 *   with a quaternion sum out of the fast normalisation range is stored, fixed per joint, and
 *   gets its additive layers from memory.
 * Non-unit quaternions: slerp uses the raw dot product as the cosine (clamped), so it assumes
 *   unit inputs; its result is finite for any finite input. nlerp and blend_layers normalise.
 */
#include "target.h"
#include "blend.h"
#include "quat_ops.h"
#include "quat_scalar.h"
#include "additive_ops.h"

#define SIN_C0 -2.39e-08f
#define SIN_C1 2.7526e-06f
#define SIN_C2 -1.98409e-04f
#define SIN_C3 8.3333315e-03f
#define SIN_C4 -1.6666666664e-01f
#define ATAN_C0 0.0028662257f
#define ATAN_C1 -0.0161657367f
#define ATAN_C2 0.0429096138f
#define ATAN_C3 -0.0752896400f
#define ATAN_C4 0.1065626393f
#define ATAN_C5 -0.1420889944f
#define ATAN_C6 0.1999355085f
#define ATAN_C7 -0.3333314528f
#define HALF_PI 1.57079632679489661923f
#define INV_PI 0.318309886183790671538f
/* pi = PI_A + PI_B + PI_C (Cody-Waite): k * PI_A and k * PI_B are exact for |k| < 2^12. */
#define PI_A 3.140625f
#define PI_B 9.677410125732422e-4f
#define PI_C -8.742277657347586e-8f
/* Floor of sin^2(omega): keeps s > 0 for identical and antipodal pairs. Float32 inputs give
 * s >= 3.5e-4 unless |c| == 1, so any small floor gives the same weights; 1e-14 keeps
 * omega >= 1e-7, so the sine polynomial's x^2 terms stay far from denormals (a 1e-30 floor made
 * identical pairs 1.5x slower). */
#define SIN2_MIN 1e-14f
/* Polynomials are evaluated in Estrin's scheme (independent pairs c_i + c_(i+1) s combined with
 * s^2 and s^4) rather than Horner's: same coefficients, a dependency chain of 25 instead of 36
 * cycles (sine) and 27 instead of 57 (arctangent), which is what bounds slerp. The powers use
 * the variable floored at a small value: below it every term past the linear one is far under
 * half an ulp of the leading 1, and the floor keeps s^2 and s^4 away from denormals and
 * underflow (slow on some CPUs) for tiny angles. */
#define SIN_S_MIN 1e-12f
#define ATAN_S_MIN 1e-8f

/* Blocks of SKS_W pairs computed side by side, each stage of slerp and nlerp a short loop over
 * them (tuning): the out-of-order core overlaps the dependency chains of the blocks it finds in
 * its window (slerp's chain is ~110 cycles, nlerp's ~60); 8 measured best on avx2 and sse41
 * for both. */
#define LOCKSTEP 8

/* ------------------------------------------------------------------------------------------
 * Lane-wise building blocks
 * ------------------------------------------------------------------------------------------ */

/* m s + c: one Estrin pair. */
static SKS_ALWAYS_INLINE vf poly_pair(float m, vf s, float c)
{
    return vf_add(vf_mul(vf_set1(m), s), vf_set1(c));
}

/* sin(a) for |a| <= pi/2 (van Waveren's SinZeroHalfPI, odd, abs error 2.3e-9):
 * a (p01 + s^2 (p23 + s^2 p45)) with s = a^2, p01 = 1 + C4 s, p23 = C3 + C2 s', p45 = C1 + C0 s'
 * and s' = max(s, SIN_S_MIN). */
static SKS_ALWAYS_INLINE vf sin_poly(vf a)
{
    const vf s = vf_mul(a, a);
    const vf sh = vf_max(vf_set1(SIN_S_MIN), s);
    const vf s2 = vf_mul(sh, sh);
    const vf p01 = poly_pair(SIN_C4, s, 1.0f), p23 = poly_pair(SIN_C2, sh, SIN_C3);
    const vf p45 = poly_pair(SIN_C0, sh, SIN_C1);
    return vf_mul(vf_add(vf_mul(vf_add(vf_mul(p45, s2), p23), s2), p01), a);
}

/* sin(x) for any x: r = x for |x| <= pi/2, else x = k pi + r with k = round(x / pi) and
 * r = ((x - k PI_A) - k PI_B) - k PI_C clamped to [-pi/2, pi/2] (absurd arguments still give a
 * value in [-1, 1]; NaN stays NaN); sin(x) = (-1)^k sin_poly(r). k beyond 2^31 counts as even
 * (every float32 above 2^24 is). For |x| <= pi/2 this is exactly sin_poly(x), -0 included, so a
 * block that needs the reduction for one lane gives every lane the bits of the per-element
 * choice. */
static SKS_ALWAYS_INLINE vf sin_reduced(vf x)
{
    const vm small = vf_le(vf_abs(x), vf_set1(HALF_PI));
    const vf k = vf_ifnot(small, vf_round(vf_mul(x, vf_set1(INV_PI))));
    const vf k_int = vf_if(vf_lt(vf_abs(k), vf_set1(2147483648.0f)), k);
    const vi odd = vi_shl(vi_and(vi_from_vf_trunc(k_int), vi_set1(1)), 31);
    vf r = vf_sub(vf_sub(vf_sub(x, vf_mul(k, vf_set1(PI_A))), vf_mul(k, vf_set1(PI_B))),
                  vf_mul(k, vf_set1(PI_C)));
    r = vf_select(small, x, r);   /* -0 - 0 PI_C would be +0 (PI_C < 0): keep x exactly */
    r = vf_max(vf_set1(-HALF_PI), r);
    r = vf_min(vf_set1(HALF_PI), r);
    return vf_xor(sin_poly(r), vf_bits_from_vi(odd));
}

/* atan2(y, x) for y, x >= 0, not both 0 (van Waveren's ATanPositive, abs error 1.4e-8): z = the
 * smaller over the larger (negated when swapped), P(z^2) z (+ pi/2 when swapped) with the
 * degree-8 polynomial P(s) = (p0 + s^2 p1) + s^4 ((p2 + s^2 p3) + s^4 C0), p0 = 1 + C7 s,
 * p1 = C6 + C5 s', p2 = C4 + C3 s', p3 = C2 + C1 s', s' = max(s, ATAN_S_MIN). */
static SKS_ALWAYS_INLINE vf atan_positive(vf y, vf x)
{
    const vm swap = vf_gt(y, x);
    const vf z = vf_div(vf_select(swap, vf_neg(x), y), vf_select(swap, y, x));
    const vf s = vf_mul(z, z);
    const vf sh = vf_max(vf_set1(ATAN_S_MIN), s);
    const vf s2 = vf_mul(sh, sh), s4 = vf_mul(s2, s2);
    const vf p0 = poly_pair(ATAN_C7, s, 1.0f), p1 = poly_pair(ATAN_C5, sh, ATAN_C6);
    const vf p2 = poly_pair(ATAN_C3, sh, ATAN_C4), p3 = poly_pair(ATAN_C1, sh, ATAN_C2);
    const vf lo = vf_add(vf_mul(p1, s2), p0);
    const vf hi = vf_add(vf_add(vf_mul(p3, s2), p2), vf_mul(vf_set1(ATAN_C0), s4));
    return vf_add(vf_mul(vf_add(vf_mul(hi, s4), lo), z), vf_if(swap, vf_set1(HALF_PI)));
}

/* ------------------------------------------------------------------------------------------
 * One block of SKS_W pairs (per-pair values in item order)
 * ------------------------------------------------------------------------------------------ */

/* The fast slerp in three stages: (1) c, a, s; (2) omega, the sine arguments, 1 / s; (3) the
 * sines and the weights. */
typedef struct slerp_state {
    vf c, av, s, t;
    vf x0, x1, inv_s;
    int in_range;
} slerp_state;

static SKS_ALWAYS_INLINE void slerp_stage1(slerp_state *st, const quat_aos *a, const quat_aos *b, vf t)
{
    const vf one = vf_set1(1.0f);
    st->t = t;
    st->c = quat_aos_dot(a, b);
    st->av = vf_min(one, vf_abs(st->c));
    st->s = vf_sqrt(vf_max(vf_set1(SIN2_MIN), vf_mul(vf_sub(one, st->av), vf_add(one, st->av))));
}

static SKS_ALWAYS_INLINE void slerp_stage2(slerp_state *st)
{
    const vf one = vf_set1(1.0f);
    const vf omega = atan_positive(st->s, st->av);
    st->x0 = vf_mul(vf_sub(one, st->t), omega);
    st->x1 = vf_mul(st->t, omega);
    st->inv_s = vf_div(one, st->s);
    st->in_range = vm_all(vm_and(vf_ge(st->t, vf_zero()), vf_le(st->t, one)));
}

static SKS_ALWAYS_INLINE void slerp_stage3(const slerp_state *st, vf *w0, vf *w1)
{
    const vf f0 = st->in_range ? sin_poly(st->x0) : sin_reduced(st->x0);
    const vf f1 = st->in_range ? sin_poly(st->x1) : sin_reduced(st->x1);
    *w0 = vf_mul(f0, st->inv_s);
    *w1 = vf_xor(vf_mul(f1, st->inv_s), vf_and(vf_set1(-0.0f), st->c));
}

/* nlerp: v = (1 - t) q0 + (+-t) q1 and |v|^2, then v (1 / sqrt(|v|^2)). */
typedef struct nlerp_state {
    quat_aos v;
    vf n2;
} nlerp_state;

static SKS_ALWAYS_INLINE void nlerp_stage1(nlerp_state *st, const quat_aos *a, const quat_aos *b, vf t)
{
    const vf w1 = vf_xor(t, vf_and(vf_set1(-0.0f), quat_aos_dot(a, b)));
    st->v = quat_aos_combine(a, b, vf_sub(vf_set1(1.0f), t), w1);
    st->n2 = quat_aos_dot(&st->v, &st->v);
}

static SKS_ALWAYS_INLINE void nlerp_stage2(const nlerp_state *st, quat_aos *r)
{
    const vf inv_len = vf_div(vf_set1(1.0f), vf_sqrt(st->n2));
    r->v[0] = vf_mul(st->v.v[0], vf_splat_in_rows(inv_len, 0));
    r->v[1] = vf_mul(st->v.v[1], vf_splat_in_rows(inv_len, 1));
    r->v[2] = vf_mul(st->v.v[2], vf_splat_in_rows(inv_len, 2));
    r->v[3] = vf_mul(st->v.v[3], vf_splat_in_rows(inv_len, 3));
}

/* Every lane's |v|^2 in [SKS_NORM2_MIN, SKS_NORM2_MAX] (else see nlerp_fix). */
static SKS_ALWAYS_INLINE int nlerp_in_range(const nlerp_state *st)
{
    return vm_all(vm_and(vf_ge(st->n2, vf_set1(SKS_NORM2_MIN)), vf_le(st->n2, vf_set1(SKS_NORM2_MAX))));
}

#define PAIR_AT(p, step, off, i) ((p) + ((off) ? (off)[i] : (ptrdiff_t)(i) * (step)))

/* The rare lanes of an nlerp block: pairs whose |v|^2 is outside [SKS_NORM2_MIN, SKS_NORM2_MAX]
 * (zero, tiny, huge, non-finite) get sks_quat_normalize_scalar(v), what the vector lane would
 * give in range. */
static void nlerp_fix(const nlerp_state *st, float *out, ptrdiff_t step, const ptrdiff_t *off,
                      size_t count)
{
    SKS_ALIGNED(SKS_VEC_ALIGN) float v[4 * SKS_W], n2[SKS_W];
    size_t i;
    quat_aos_store(v, 4, NULL, &st->v, SKS_W);
    vf_store_items(n2, st->n2);
    for (i = 0; i < count; i++)
        if (!(n2[i] >= SKS_NORM2_MIN && n2[i] <= SKS_NORM2_MAX))
            sks_quat_normalize_scalar(PAIR_AT(out, step, off, i), v + 4 * i);
}

/* The careful slerp of one pair: the angle, the weights and the combination in double precision
 * from the float32 inputs, rounded once at the end. o may alias a or b. */
static void slerp_exact_one(float *o, const float *a, const float *b, float t)
{
    double A[4], B[4], d2 = 0.0, p2 = 0.0, dot = 0.0, omega, so, w0, w1;
    int i;
    for (i = 0; i < 4; i++) dot += (double)a[i] * (double)b[i];
    for (i = 0; i < 4; i++) {
        A[i] = a[i];
        B[i] = dot < 0.0 ? -(double)b[i] : (double)b[i];
        d2 += (A[i] - B[i]) * (A[i] - B[i]);
        p2 += (A[i] + B[i]) * (A[i] + B[i]);
    }
    omega = 2.0 * atan2(sqrt(d2), sqrt(p2));
    so = sin(omega);
    if (so == 0.0) {
        w0 = 1.0 - (double)t;
        w1 = t;
    } else {
        w0 = sin((1.0 - (double)t) * omega) / so;
        w1 = sin((double)t * omega) / so;
    }
    for (i = 0; i < 4; i++) o[i] = (float)(w0 * A[i] + w1 * B[i]);
}

/* ------------------------------------------------------------------------------------------
 * The pair loop of slerp "fast", nlerp and blend_joints
 * ------------------------------------------------------------------------------------------ */

/* Where block j of a group starts. */
typedef struct pair_block {
    float *out;
    const float *q0, *q1, *t;
    const ptrdiff_t *off;   /* the offsets of its pairs (an index), or NULL: steps */
    size_t count;           /* pairs in the block */
} pair_block;

static SKS_ALWAYS_INLINE pair_block pair_block_at(float *out, ptrdiff_t so, const float *q0,
                                                  ptrdiff_t s0, const float *q1, ptrdiff_t s1,
                                                  const float *t, size_t t_step,
                                                  const ptrdiff_t *offsets, size_t first, int j,
                                                  int nb, size_t count)
{
    const size_t i = first + (size_t)j * SKS_W;   /* its first pair */
    const ptrdiff_t at = offsets ? 0 : (ptrdiff_t)i;
    pair_block k;
    k.out = out + at * so;
    k.q0 = q0 + at * s0;
    k.q1 = q1 + at * s1;
    k.t = t + i * t_step;
    k.off = offsets ? offsets + j * SKS_W : NULL;
    k.count = j == nb - 1 ? count : SKS_W;
    return k;
}

/* nb blocks side by side (nb <= LOCKSTEP; count pairs in the last, SKS_W in the others),
 * starting at pair `first`: pairs at q0 + i s0, q1 + i s1, out + i so (steps in floats) with
 * t[i t_step], or, with an index, the QTS joints 8 index[i] of q0, q1 and out (steps 0).
 * joints: the operands are QTS joints, whose translation and scale (the four floats after each
 * quaternion) become a + t (b - a) with one t. Each block is read before it is written, and
 * blocks never overlap, so out may equal q0 or q1. `method` is a constant in each instance. */
static SKS_ALWAYS_INLINE void pair_blocks(float *out, ptrdiff_t so, const float *q0, ptrdiff_t s0,
                                          const float *q1, ptrdiff_t s1, const float *t,
                                          size_t t_step, const int32_t *index, size_t first,
                                          int nb, size_t count, int joints, int method)
{
    ptrdiff_t offsets[LOCKSTEP * SKS_W];
    slerp_state ss[LOCKSTEP];
    nlerp_state ns[LOCKSTEP];
    const size_t total = (size_t)(nb - 1) * SKS_W + count;
    int j;
    if (index) {   /* past the last pair: its offset again (read, never used) */
        size_t m;
        for (m = 0; m < (size_t)nb * SKS_W; m++)
            offsets[m] = SKS_QTS_FLOATS * (ptrdiff_t)index[first + (m < total ? m : total - 1)];
    }
#define BLOCK(j) pair_block_at(out, so, q0, s0, q1, s1, t, t_step, index ? offsets : NULL, first, (j), nb, count)
    if (method != SKS_INTERP_EXACT) {
        for (j = 0; j < nb; j++) {
            const pair_block blk = BLOCK(j), *k = &blk;
            const quat_aos a = quat_aos_load(k->q0, s0, k->off, k->count);
            const quat_aos b = quat_aos_load(k->q1, s1, k->off, k->count);
            const vf tv = !t_step ? vf_set1(*k->t)
                          : k->count == SKS_W ? vf_load_items(k->t) : vf_load_items_n(k->t, k->count);
            if (method == SKS_INTERP_NLERP) nlerp_stage1(&ns[j], &a, &b, tv);
            else slerp_stage1(&ss[j], &a, &b, tv);
        }
        if (method == SKS_INTERP_FAST)
            for (j = 0; j < nb; j++) slerp_stage2(&ss[j]);
    }
    for (j = 0; j < nb; j++) {
        const pair_block blk = BLOCK(j), *k = &blk;
        quat_aos a, b, ta, tb, r;
        if (joints) {   /* whole joints: the quaternions and the (t, s) halves */
            qts_aos_load(k->q0, s0, k->off, k->count, &a, &ta);
            qts_aos_load(k->q1, s1, k->off, k->count, &b, &tb);
        } else if (method == SKS_INTERP_FAST) {
            a = quat_aos_load(k->q0, s0, k->off, k->count);
            b = quat_aos_load(k->q1, s1, k->off, k->count);
        }
        if (method == SKS_INTERP_EXACT) {   /* libm, per pair */
            SKS_ALIGNED(SKS_VEC_ALIGN) float e[4 * SKS_W];
            size_t i;
            for (i = 0; i < k->count; i++)
                slerp_exact_one(e + 4 * i, PAIR_AT(k->q0, s0, k->off, i), PAIR_AT(k->q1, s1, k->off, i),
                                k->t[i * t_step]);
            r = quat_aos_load(e, 4, NULL, k->count);
        } else if (method == SKS_INTERP_NLERP) {
            nlerp_stage2(&ns[j], &r);
        } else {   /* (the quaternions loaded again: not kept live across the stages) */
            vf w0, w1;
            slerp_stage3(&ss[j], &w0, &w1);
            r = quat_aos_combine(&a, &b, w0, w1);
        }
        if (joints) {   /* translation and scale: a + t (b - a) */
            const vf tv = vf_set1(*t);
            quat_aos ts;
            int c;
            for (c = 0; c < 4; c++) ts.v[c] = vf_add(ta.v[c], vf_mul(tv, vf_sub(tb.v[c], ta.v[c])));
            qts_aos_store(k->out, so, k->off, &r, &ts, k->count);
        } else {
            quat_aos_store(k->out, so, k->off, &r, k->count);
        }
        if (method == SKS_INTERP_NLERP && !nlerp_in_range(&ns[j]))
            nlerp_fix(&ns[j], k->out, so, k->off, k->count);
    }
#undef BLOCK
}

/* Every pair of n: groups of `lockstep` full blocks, the remaining full blocks one by one, then
 * the tail through the same block code. */
static SKS_ALWAYS_INLINE void pair_loop(float *out, ptrdiff_t so, const float *q0, ptrdiff_t s0,
                                        const float *q1, ptrdiff_t s1, const float *t,
                                        size_t t_step, const int32_t *index, size_t n, int joints,
                                        int method)
{
    const int lockstep = method == SKS_INTERP_EXACT ? 1 : LOCKSTEP;
    size_t i = 0;
    for (; i + (size_t)lockstep * SKS_W <= n; i += (size_t)lockstep * SKS_W)
        pair_blocks(out, so, q0, s0, q1, s1, t, t_step, index, i, lockstep, SKS_W, joints, method);
    for (; i + SKS_W <= n; i += SKS_W)
        pair_blocks(out, so, q0, s0, q1, s1, t, t_step, index, i, 1, SKS_W, joints, method);
    if (i < n) pair_blocks(out, so, q0, s0, q1, s1, t, t_step, index, i, 1, n - i, joints, method);
}

/* slerp "fast" and nlerp with the operand steps as constants (0: broadcast, 4: consecutive), and
 * the t step too for the common form of two arrays of pairs with one t each (a runtime t step
 * left a test and two jumps in every block of the loop: 13.2 -> 12.2 instructions per pair on
 * avx2). */
static SKS_ALWAYS_INLINE void interp(float *out, const float *q0, size_t q0_step, const float *q1,
                                     size_t q1_step, const float *t, size_t t_step, size_t n,
                                     int method)
{
    if (q0_step && q1_step) {
        if (t_step == 1) pair_loop(out, 4, q0, 4, q1, 4, t, 1, NULL, n, 0, method);
        else pair_loop(out, 4, q0, 4, q1, 4, t, t_step, NULL, n, 0, method);
    } else if (q0_step) {
        pair_loop(out, 4, q0, 4, q1, 0, t, t_step, NULL, n, 0, method);
    } else if (q1_step) {
        pair_loop(out, 4, q0, 0, q1, 4, t, t_step, NULL, n, 0, method);
    } else {
        pair_loop(out, 4, q0, 0, q1, 0, t, t_step, NULL, n, 0, method);
    }
}

/* slerp "fast" (formula, order, bounds at the top of this file). */
static void slerp_fast(float *out, const float *q0, size_t q0_step, const float *q1, size_t q1_step,
                       const float *t, size_t t_step, size_t n)
{
    interp(out, q0, q0_step, q1, q1_step, t, t_step, n, SKS_INTERP_FAST);
}

/* nlerp (top of this file): a pair with |v|^2 outside the fast range goes through nlerp_fix. */
static void nlerp(float *out, const float *q0, size_t q0_step, const float *q1, size_t q1_step,
                  const float *t, size_t t_step, size_t n)
{
    interp(out, q0, q0_step, q1, q1_step, t, t_step, n, SKS_INTERP_NLERP);
}

/* slerp "exact": libm in double, per element on every target (top of this file). */
static void slerp_exact(float *out, const float *q0, size_t q0_step, const float *q1,
                        size_t q1_step, const float *t, size_t t_step, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        slerp_exact_one(out + 4 * i, q0 + 4 * q0_step * i, q1 + 4 * q1_step * i, t[t_step * i]);
}

/* ------------------------------------------------------------------------------------------
 * blend_joints and blend_layers
 * ------------------------------------------------------------------------------------------ */

/* The selected joints of one pose (0 < t < 1 or NaN): joints index[k] (or k when index is NULL)
 * for k < nsel, by `method` (a constant in each instance). */
static SKS_ALWAYS_INLINE void blend_selected(float *o, const float *a, const float *b, float t,
                                             const int32_t *index, size_t nsel, int method)
{
    const ptrdiff_t step = index ? 0 : SKS_QTS_FLOATS;
    switch (method) {
    case SKS_INTERP_EXACT: pair_loop(o, step, a, step, b, step, &t, 0, index, nsel, 1, SKS_INTERP_EXACT); break;
    case SKS_INTERP_NLERP: pair_loop(o, step, a, step, b, step, &t, 0, index, nsel, 1, SKS_INTERP_NLERP); break;
    default: pair_loop(o, step, a, step, b, step, &t, 0, index, nsel, 1, SKS_INTERP_FAST); break;
    }
}

static void blend_run(float *o, const float *a, const float *b, float t, const int32_t *index,
                      size_t nsel, int method)
{
    if (index) blend_selected(o, a, b, t, index, nsel, method);
    else blend_selected(o, a, b, t, NULL, nsel, method);
}

/* For every pose: the article's shortcuts (t <= 0: a copy of joints; t >= 1: blend for the selected
 * joints), the copies of the joints that are not selected, then blend_run on the selected ones. */
static void blend_joints(float *out, const float *joints, size_t joints_step, const float *blend,
                         size_t blend_step, const float *t, size_t t_step, size_t npose,
                         size_t njoints, const int32_t *index, size_t nindex, int method)
{
    const size_t pose = 8 * njoints;
    const size_t nsel = index ? nindex : njoints;
    size_t p, k;
    for (p = 0; p < npose; p++) {
        float *o = out + p * pose;
        const float *a = joints + p * joints_step * pose;
        const float *b = blend + p * blend_step * pose;
        const float tp = t[p * t_step];
        const int interpolate = !(tp <= 0.0f) && !(tp >= 1.0f);   /* NaN interpolates */
        if (index == NULL && tp >= 1.0f) {
            memcpy(o, b, pose * sizeof(float));
            continue;
        }
        if (o != a && !(index == NULL && interpolate)) memcpy(o, a, pose * sizeof(float));
        if (tp <= 0.0f) continue;
        if (tp >= 1.0f) {
            for (k = 0; k < nsel; k++) memcpy(o + 8 * (size_t)index[k], b + 8 * (size_t)index[k], 8 * sizeof(float));
            continue;
        }
        blend_run(o, a, b, tp, index, nsel, method);
    }
}

/* 1 / (sum of the weights) of one weight per layer, in every lane: the running sum
 * ((0 + w_0) + w_1) + ... that layers_regs forms per joint, formed once per call. */
static SKS_ALWAYS_INLINE vf layers_inv_total(const float *w, size_t nlayers, size_t layer_stride)
{
    vf total = vf_zero();
    size_t l;
    for (l = 0; l < nlayers; l++) total = vf_add(total, vf_set1(w[l * layer_stride]));
    return vf_div(vf_set1(1.0f), total);
}

/* The weighted sums of SKS_W (count in the tail) consecutive joints of one pose of blend_layers
 * in registers: layer l's joints at x + l layer_floats, their weights at w + l layer_stride
 * (+ joint_step per joint). acc: the quaternion sum with the running hemisphere alignment; ts:
 * the (t, s) sum (memory order, quat_aos). Returns 1 / (sum of the weights) in item order (the
 * caller's uniform_inv_total, layers_inv_total, for one weight per layer). */
static SKS_ALWAYS_INLINE vf layers_sums(quat_aos *acc, quat_aos *ts, const float *x,
                                        size_t layer_floats, size_t nlayers, const float *w,
                                        size_t layer_stride, size_t joint_step, size_t count,
                                        vf uniform_inv_total)
{
    const vf zero = vf_zero(), sign = vf_set1(-0.0f);
    vf total = zero;
    size_t l;
    int k;
    for (k = 0; k < 4; k++) acc->v[k] = ts->v[k] = zero;
    for (l = 0; l < nlayers; l++) {
        const float *xl = x + l * layer_floats, *wl = w + l * layer_stride;
        quat_aos y, yts;
        vf wq;
        qts_aos_load(xl, SKS_QTS_FLOATS, NULL, count, &y, &yts);
        const vf wv = !joint_step ? vf_set1(*wl) : count == SKS_W ? vf_load_items(wl) : vf_load_items_n(wl, count);
        /* The first layer meets acc = 0: dot(0, y) is +-0 or NaN, never < 0, so its weight keeps
         * its sign without the dot product. */
        wq = l == 0 ? wv : vf_xor(wv, vf_if(vf_lt(quat_aos_dot(acc, &y), zero), sign));
        /* One weight per layer: wv is the same in every lane, its own splat. */
#define LAYER_ADD(k)                                                                          \
        acc->v[k] = vf_add(acc->v[k], vf_mul(vf_splat_in_rows(wq, k), y.v[k]));                \
        ts->v[k] = vf_add(ts->v[k], vf_mul(joint_step ? vf_splat_in_rows(wv, k) : wv, yts.v[k]))
        LAYER_ADD(0);
        LAYER_ADD(1);
        LAYER_ADD(2);
        LAYER_ADD(3);
#undef LAYER_ADD
        if (joint_step) total = vf_add(total, wv);
    }
    return joint_step ? vf_div(vf_set1(1.0f), total) : uniform_inv_total;
}

/* out q = acc (1 / sqrt(|acc|^2)) (one division per quaternion, nlerp's), out ts = ts inv_total,
 * stored; lanes with |acc|^2 outside [SKS_NORM2_MIN, SKS_NORM2_MAX] then get
 * sks_quat_normalize_scalar(acc). */
static SKS_ALWAYS_INLINE void layers_store(float *o, const quat_aos *acc, quat_aos *ts, vf inv_total,
                                           size_t joint_step, size_t count)
{
    const vf n2 = quat_aos_dot(acc, acc);
    const vf inv_len = vf_div(vf_set1(1.0f), vf_sqrt(n2));
    quat_aos q;
#define LAYER_OUT(k)                                                                          \
    q.v[k] = vf_mul(acc->v[k], vf_splat_in_rows(inv_len, k));                                  \
    ts->v[k] = vf_mul(ts->v[k], joint_step ? vf_splat_in_rows(inv_total, k) : inv_total)
    LAYER_OUT(0);
    LAYER_OUT(1);
    LAYER_OUT(2);
    LAYER_OUT(3);
#undef LAYER_OUT
    qts_aos_store(o, SKS_QTS_FLOATS, NULL, &q, ts, count);
    if (!vm_all(vm_and(vf_ge(n2, vf_set1(SKS_NORM2_MIN)), vf_le(n2, vf_set1(SKS_NORM2_MAX))))) {
        SKS_ALIGNED(SKS_VEC_ALIGN) float v[4 * SKS_W], n2s[SKS_W];
        size_t i;
        quat_aos_store(v, 4, NULL, acc, SKS_W);
        vf_store_items(n2s, n2);
        for (i = 0; i < count; i++)
            if (!(n2s[i] >= SKS_NORM2_MIN && n2s[i] <= SKS_NORM2_MAX))
                sks_quat_normalize_scalar(o + 8 * i, v + 4 * i);
    }
}

/* The additive layers on joints [j, j + n) of pose p of out (apply_additive's runs). */
static SKS_ALWAYS_INLINE void additive_run(float *o, const sks_additive_layer *add, size_t nadd,
                                           size_t p, size_t j, size_t n, size_t pose)
{
    size_t a;
    for (a = 0; a < nadd; a++) {
        const sks_additive_layer *L = add + a;
        const float *d = L->delta + p * L->delta_step * pose + 8 * j;
        const float *m = L->mask ? L->mask + j : NULL;
        if (L->weight < 0.0f) apply_run(o, o, d, n, L->weight, m, 1);
        else apply_run(o, o, d, n, L->weight, m, 0);
    }
}

/* blend_layers on a block, then its additive layers (nadd > 0 of them, at joint j of pose p)
 * while it is in registers: the quaternion sums are transposed to quat_soa (the layout
 * half_load gives from memory; item order is lane order there, so |acc|^2 (quat_soa_dot:
 * quat_aos_dot's order) and 1 / sqrt scale whole vectors); the (t, s) sums stay in memory
 * order, scaled by 1 / total as layers_store scales them; every layer's apply_rotations and
 * apply_translations (apply_run's per-block factors) in order, then one store of each half. A
 * block with |acc|^2 out of range somewhere takes the two-pass way: layers_store, then the
 * additive layers from memory (the same operations). plain: one layer, no mask and a weight >= 0
 * (a constant in each instance, so that its tests leave the block). */
static SKS_ALWAYS_INLINE void layers_additive_block(float *o, quat_aos *acc, quat_aos *ts, vf inv_total,
                                                    size_t joint_step, size_t count,
                                                    const sks_additive_layer *add, size_t nadd,
                                                    size_t p, size_t j, size_t pose, int plain)
{
    quat_soa bq;
    vf n2, inv_len;
    size_t a;
    bq.x = acc->v[0], bq.y = acc->v[1], bq.z = acc->v[2], bq.w = acc->v[3];
    vf_transpose4_in_rows(&bq.x, &bq.y, &bq.z, &bq.w);
    n2 = quat_soa_dot(bq, bq);
    if (!vm_all(vm_and(vf_ge(n2, vf_set1(SKS_NORM2_MIN)), vf_le(n2, vf_set1(SKS_NORM2_MAX))))) {
        layers_store(o, acc, ts, inv_total, joint_step, count);
        additive_run(o, add, nadd, p, j, count, pose);
        return;
    }
    inv_len = vf_div(vf_set1(1.0f), vf_sqrt(n2));
    bq.x = vf_mul(bq.x, inv_len);
    bq.y = vf_mul(bq.y, inv_len);
    bq.z = vf_mul(bq.z, inv_len);
    bq.w = vf_mul(bq.w, inv_len);
#define LAYER_TS(k) ts->v[k] = vf_mul(ts->v[k], joint_step ? vf_splat_in_rows(inv_total, k) : inv_total)
    LAYER_TS(0);
    LAYER_TS(1);
    LAYER_TS(2);
    LAYER_TS(3);
#undef LAYER_TS
    for (a = 0; a < nadd; a++) {
        const sks_additive_layer *L = add + a;
        const float *d = L->delta + p * L->delta_step * pose + 8 * j;
        const int subtract = !plain && L->weight < 0.0f;
        const float *mask = plain ? NULL : L->mask;
        vf wa = vf_set1(subtract ? -L->weight : L->weight), wv = vf_set1(L->weight);
        if (mask) {
            const vf mv = count == SKS_W ? vf_load_items(mask + j) : vf_load_items_n(mask + j, count);
            wa = vf_mul(wa, mv);
            wv = vf_mul(wv, mv);
        }
        if (subtract) apply_rotations(&bq, half_load(d, count), wa, 1);
        else apply_rotations(&bq, half_load(d, count), wa, 0);
        if (mask) {
            if (subtract) apply_translations(ts, d + 4, wa, wv, count, 0, 1);
            else apply_translations(ts, d + 4, wa, wv, count, 0, 0);
        } else {
            if (subtract) apply_translations(ts, d + 4, wa, wv, count, 1, 1);
            else apply_translations(ts, d + 4, wa, wv, count, 1, 0);
        }
    }
    half_store(o, bq, count);
    quat_aos_store(o + 4, SKS_QTS_FLOATS, NULL, ts, count);
}

/* blend_layers on a block, then the additive layers (none for blend_layers). */
static SKS_ALWAYS_INLINE void layers_block(float *o, const float *x, size_t layer_floats,
                                           size_t nlayers, const float *w, size_t layer_stride,
                                           size_t joint_step, size_t count,
                                           const sks_additive_layer *add, size_t nadd, size_t p,
                                           size_t j, size_t pose, vf uniform_inv_total, int plain)
{
    quat_aos acc, ts;
    const vf inv_total = layers_sums(&acc, &ts, x, layer_floats, nlayers, w, layer_stride,
                                     joint_step, count, uniform_inv_total);
    if (nadd) layers_additive_block(o, &acc, &ts, inv_total, joint_step, count, add, nadd, p, j, pose, plain);
    else layers_store(o, &acc, &ts, inv_total, joint_step, count);
}

/* blend_layers (top of this file), SKS_W joints of a pose per block, each block followed by the
 * additive layers (none for blend_layers) while it is in registers; joint_step 0 (one weight
 * per layer) or 1 (per joint), a constant in each instance. The full blocks go in pairs, both
 * blocks' sums formed before either block is finished (normalised and stored, or given its
 * additive layers), so that the out-of-order core overlaps the two blocks' long chains (loads,
 * sums, square root and division, then the additive layers' own); every value sees the same
 * operations. plain: see layers_additive_block. */
static SKS_ALWAYS_INLINE void layers_run(float *out, const float *layers, size_t npose, size_t nlayers,
                                         size_t njoints, const float *weights, size_t layer_stride,
                                         size_t joint_step, const sks_additive_layer *add, size_t nadd,
                                         int plain)
{
    const size_t pose = 8 * njoints;
    const vf inv_total = joint_step ? vf_zero() : layers_inv_total(weights, nlayers, layer_stride);
    size_t p, j;
    for (p = 0; p < npose; p++) {
        const float *x = layers + p * nlayers * pose;
        float *o = out + p * pose;
        for (j = 0; j + 2 * SKS_W <= njoints; j += 2 * SKS_W) {   /* two blocks side by side */
            const size_t j1 = j + SKS_W;
            quat_aos acc0, ts0, acc1, ts1;
            const vf it0 = layers_sums(&acc0, &ts0, x + 8 * j, pose, nlayers, weights + j * joint_step,
                                       layer_stride, joint_step, SKS_W, inv_total);
            const vf it1 = layers_sums(&acc1, &ts1, x + 8 * j1, pose, nlayers, weights + j1 * joint_step,
                                       layer_stride, joint_step, SKS_W, inv_total);
            if (nadd) {
                layers_additive_block(o + 8 * j, &acc0, &ts0, it0, joint_step, SKS_W, add, nadd, p, j, pose, plain);
                layers_additive_block(o + 8 * j1, &acc1, &ts1, it1, joint_step, SKS_W, add, nadd, p, j1, pose, plain);
            } else {
                layers_store(o + 8 * j, &acc0, &ts0, it0, joint_step, SKS_W);
                layers_store(o + 8 * j1, &acc1, &ts1, it1, joint_step, SKS_W);
            }
        }
        for (; j + SKS_W <= njoints; j += SKS_W)
            layers_block(o + 8 * j, x + 8 * j, pose, nlayers, weights + j * joint_step,
                         layer_stride, joint_step, SKS_W, add, nadd, p, j, pose, inv_total, plain);
        if (j < njoints)
            layers_block(o + 8 * j, x + 8 * j, pose, nlayers, weights + j * joint_step,
                         layer_stride, joint_step, njoints - j, add, nadd, p, j, pose, inv_total, plain);
    }
}

static void blend_layers(float *out, const float *layers, size_t npose, size_t nlayers,
                         size_t njoints, const float *weights, size_t layer_stride,
                         size_t joint_step)
{
    if (joint_step) layers_run(out, layers, npose, nlayers, njoints, weights, layer_stride, 1, NULL, 0, 0);
    else layers_run(out, layers, npose, nlayers, njoints, weights, layer_stride, 0, NULL, 0, 0);
}

static void blend_layers_additive(float *out, const float *layers, size_t npose, size_t nlayers,
                                  size_t njoints, const float *weights, size_t layer_stride,
                                  size_t joint_step, const sks_additive_layer *add, size_t nadd)
{
    if (joint_step) {
        layers_run(out, layers, npose, nlayers, njoints, weights, layer_stride, 1, add, nadd, 0);
    } else if (nlayers == 2 && nadd == 1 && add->mask == NULL && add->weight >= 0.0f) {
        /* the common job (two layers, one additive layer over the whole pose) with its counts
         * and options as constants: its layer loops unrolled and its option tests out of the
         * blocks (measured faster than the general instance on every x86 target) */
        layers_run(out, layers, npose, 2, njoints, weights, layer_stride, 0, add, 1, 1);
    } else {
        layers_run(out, layers, npose, nlayers, njoints, weights, layer_stride, 0, add, nadd, 0);
    }
}

SKS_ROW(blend) = {slerp_fast, slerp_exact, nlerp, blend_joints, blend_layers, blend_layers_additive};
