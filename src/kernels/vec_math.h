/*
 * vec_math.h -- elementary functions on the vector vocabulary: sine and cosine with range
 * reduction (radians and degrees), and atan2 as an exact multiple of pi/4 plus a small part.
 * Written once against vec.h and included by family sources after target.h (one copy per target
 * translation unit). There is no vector libm, and results must be the same bits on every target,
 * so every function is a fixed sequence of IEEE float32 vocabulary operations (no FMA).
 *
 * Polynomials (minimax for the relative error, Remez exchange in 50-digit arithmetic, float32
 * coefficients; benchmarks/fit_vec_math.py finds them and measures their float32 evaluation
 * over dense samples against float64 libm, errors in float32 ulps of the result):
 *   sin(r) = r + (r z) S(z),  z = r^2, S of degree 2        |r| <= 1.01 pi/4   0.73 ulp
 *   cos(r) = (z^2 C(z) - z / 2) + 1, C of degree 2          |r| <= 1.01 pi/4   0.97 ulp
 *   atan(t) = t + (t z) A(z), z = t^2, A of degree 4        |t| <= 1.01 tan(pi/8)   0.61 ulp
 * each polynomial in Horner's order.
 *
 * Range reduction
 *   radians: x = k pi/2 + r with k = round(x 2/pi) and r = ((x - k A) - k B) - k C, pi/2 split
 *     as A + B + C with A and B of 12 significant bits (Cody and Waite), so k A and k B are exact
 *     for |k| <= 4096: valid for |x| <= VMATH_TRIG_MAX (6000), where r carries about one ulp of
 *     error. Callers route larger or non-finite arguments elsewhere (vmath_trig_ok).
 *   degrees: x = 90 k + d exactly (d = x - 90 k is exact for |x| < 2^22), then r = d pi/180 (one
 *     rounding), so large angles in degrees (720, 3600, ...) lose nothing in the reduction.
 *   sin(x) and cos(x) are then (sin r, cos r) swapped and negated by the quadrant k mod 4.
 *
 * atan2 (vmath_atan2): the angle is returned as m pi/4 + s with m an integer-valued float in
 * [-4, 4] and |s| <= pi/8 (plus rounding): the octant reduction ((y, x) to a ratio t in
 * [-tan(pi/8), tan(pi/8)] with one division) and the reflections are exact in m, so sums,
 * differences, doublings and 2 pi wraps of angles stay exact in m and only the small parts round.
 * vangle_radians rounds m pi/4 + s once, with pi/4 = P4_HI + P4_LO, P4_HI of 16 bits so that
 * m P4_HI is exact for |m| <= 256: an angle is within about 0.6 ulp of the exact atan2 plus the
 * rounding of its sum. Signs follow C's atan2 (the sign bits of y and x decide: atan2(+-0, -0) is
 * +-pi). NaN in, NaN out.
 */
#ifndef SKS_VEC_MATH_H
#define SKS_VEC_MATH_H

#include <math.h>

#define VMATH_SIN_S0 -1.666665375e-01f
#define VMATH_SIN_S1 8.332112804e-03f
#define VMATH_SIN_S2 -1.950874139e-04f
#define VMATH_COS_C0 4.166664556e-02f
#define VMATH_COS_C1 -1.388725126e-03f
#define VMATH_COS_C2 2.442568075e-05f
#define VMATH_ATAN_A0 -3.333331347e-01f
#define VMATH_ATAN_A1 1.999835819e-01f
#define VMATH_ATAN_A2 -1.424126923e-01f
#define VMATH_ATAN_A3 1.057630032e-01f
#define VMATH_ATAN_A4 -6.032107770e-02f

#define VMATH_TWO_OVER_PI 6.366197467e-01f
#define VMATH_PIO2_A 1.57080078125f           /* 3217 / 2048 */
#define VMATH_PIO2_B -4.453584551811218e-06f  /* -2391 / 2^29 */
#define VMATH_PIO2_C -8.705515753e-10f
#define VMATH_TRIG_MAX 6000.0f                /* radians: |k| <= 3820 < 4096 */
#define VMATH_TRIG_MAX_DEG 4000000.0f         /* degrees: < 2^22 */
#define VMATH_DEG_TO_RAD 1.745329238e-02f
#define VMATH_RAD_TO_DEG 5.729578018e+01f
#define VMATH_INV_90 1.111111138e-02f
#define VMATH_TAN_PI_8 4.142135680e-01f
#define VMATH_P4_HI 0.785400390625f           /* 51472 / 2^16 */
#define VMATH_P4_LO -2.227227469e-06f         /* pi/4 - P4_HI */

/* Lanes whose sign bit is set (-0.0 and negative NaNs included). */
static SKS_ALWAYS_INLINE vm vmath_signbit(vf x)
{
    return vi_gt(vi_set1(0), vi_bits_from_vf(x));
}

/* sin(r) and cos(r) for |r| <= 1.01 pi/4 (no reduction). */
static SKS_ALWAYS_INLINE vf vmath_sin_poly(vf r, vf z)
{
    vf p = vf_add(vf_mul(vf_set1(VMATH_SIN_S2), z), vf_set1(VMATH_SIN_S1));
    p = vf_add(vf_mul(p, z), vf_set1(VMATH_SIN_S0));
    return vf_add(vf_mul(vf_mul(r, z), p), r);
}

/* sin(r) / r = 1 + z S(z) (the same polynomial without its last step; exactly 1 at r = 0). */
static SKS_ALWAYS_INLINE vf vmath_sinc_poly(vf z)
{
    vf p = vf_add(vf_mul(vf_set1(VMATH_SIN_S2), z), vf_set1(VMATH_SIN_S1));
    p = vf_add(vf_mul(p, z), vf_set1(VMATH_SIN_S0));
    return vf_add(vf_mul(z, p), vf_set1(1.0f));
}

static SKS_ALWAYS_INLINE vf vmath_cos_poly(vf z)
{
    vf p = vf_add(vf_mul(vf_set1(VMATH_COS_C2), z), vf_set1(VMATH_COS_C1));
    p = vf_add(vf_mul(p, z), vf_set1(VMATH_COS_C0));
    return vf_add(vf_sub(vf_mul(vf_mul(z, z), p), vf_mul(vf_set1(0.5f), z)), vf_set1(1.0f));
}

/* atan(t) for |t| <= 1.01 tan(pi/8), and atan(t) / t = 1 + z A(z) (z = t^2). */
static SKS_ALWAYS_INLINE vf vmath_atan_core(vf z)
{
    vf p = vf_add(vf_mul(vf_set1(VMATH_ATAN_A4), z), vf_set1(VMATH_ATAN_A3));
    p = vf_add(vf_mul(p, z), vf_set1(VMATH_ATAN_A2));
    p = vf_add(vf_mul(p, z), vf_set1(VMATH_ATAN_A1));
    return vf_add(vf_mul(p, z), vf_set1(VMATH_ATAN_A0));
}
static SKS_ALWAYS_INLINE vf vmath_atan_poly(vf t, vf z)
{
    return vf_add(vf_mul(vf_mul(t, z), vmath_atan_core(z)), t);
}
static SKS_ALWAYS_INLINE vf vmath_atan_over_t_poly(vf z)
{
    return vf_add(vf_mul(z, vmath_atan_core(z)), vf_set1(1.0f));
}

/* sin and cos of x = k pi/2 + r: the reduced argument r (radians, |r| <= pi/4 up to rounding),
 * the quadrant k (an integer-valued float) and the results. */
typedef struct vtrig {
    vf sin, cos, r, k;
} vtrig;

/* (sin r, cos r) rotated by k quarter turns: k odd swaps them; sin is negated for k = 2, 3 and
 * cos for k = 1, 2 (mod 4). */
static SKS_ALWAYS_INLINE void vmath_quadrant(vtrig *t)
{
    const vf z = vf_mul(t->r, t->r);
    const vf sr = vmath_sin_poly(t->r, z), cr = vmath_cos_poly(z);
    const vi q = vi_from_vf_trunc(t->k);
    const vm odd = vi_eq(vi_and(q, vi_set1(1)), vi_set1(1));
    const vf sign_s = vf_bits_from_vi(vi_shl(vi_and(q, vi_set1(2)), 30));
    const vf sign_c = vf_bits_from_vi(vi_shl(vi_and(vi_add(q, vi_set1(1)), vi_set1(2)), 30));
    t->sin = vf_xor(vf_select(odd, cr, sr), sign_s);
    t->cos = vf_xor(vf_select(odd, sr, cr), sign_c);
}

/* sin(x), cos(x) for |x| <= VMATH_TRIG_MAX radians (larger or non-finite x: garbage, never a
 * trap; see vmath_trig_ok). */
static SKS_ALWAYS_INLINE vtrig vmath_sincos(vf x)
{
    vtrig t;
    t.k = vf_round(vf_mul(x, vf_set1(VMATH_TWO_OVER_PI)));
    t.r = vf_sub(vf_sub(vf_sub(x, vf_mul(t.k, vf_set1(VMATH_PIO2_A))), vf_mul(t.k, vf_set1(VMATH_PIO2_B))),
                 vf_mul(t.k, vf_set1(VMATH_PIO2_C)));
    vmath_quadrant(&t);
    return t;
}

/* sin and cos of x degrees for |x| <= VMATH_TRIG_MAX_DEG: x = 90 k + d exactly, r = d pi/180. */
static SKS_ALWAYS_INLINE vtrig vmath_sincos_deg(vf x)
{
    vtrig t;
    t.k = vf_round(vf_mul(x, vf_set1(VMATH_INV_90)));
    t.r = vf_mul(vf_sub(x, vf_mul(t.k, vf_set1(90.0f))), vf_set1(VMATH_DEG_TO_RAD));
    vmath_quadrant(&t);
    return t;
}

/* sin and cos for 0 <= x <= 2.3 rad (degrees: 0 <= x <= 130), where the quadrant k is 0 or 1:
 * decided as vmath_sincos (vmath_sincos_deg) decides it and reduced with the same operations,
 * so the results are the same bits, with a compare and selects instead of the rounding and the
 * integer quadrant logic. */
static SKS_ALWAYS_INLINE vtrig vmath_sincos_low(vf x, int degrees)
{
    vtrig t;
    const vm k1 = vf_gt(vf_mul(x, vf_set1(degrees ? VMATH_INV_90 : VMATH_TWO_OVER_PI)), vf_set1(0.5f));
    vf z, sr, cr;
    if (degrees) {
        t.r = vf_mul(vf_select(k1, vf_sub(x, vf_set1(90.0f)), x), vf_set1(VMATH_DEG_TO_RAD));
    } else {
        const vf r1 = vf_sub(vf_sub(vf_sub(x, vf_set1(VMATH_PIO2_A)), vf_set1(VMATH_PIO2_B)), vf_set1(VMATH_PIO2_C));
        t.r = vf_select(k1, r1, x);
    }
    t.k = vf_if(k1, vf_set1(1.0f));
    z = vf_mul(t.r, t.r);
    sr = vmath_sin_poly(t.r, z);
    cr = vmath_cos_poly(z);
    t.sin = vf_select(k1, cr, sr);
    t.cos = vf_select(k1, vf_neg(sr), cr);
    return t;
}

/* Lanes vmath_sincos (degrees: vmath_sincos_deg) handles: finite and |x| <= the limit. */
static SKS_ALWAYS_INLINE vm vmath_trig_ok(vf x, int degrees)
{
    return vf_le(vf_abs(x), vf_set1(degrees ? VMATH_TRIG_MAX_DEG : VMATH_TRIG_MAX));
}

/* sin and cos of h radians (degrees: reduced exactly modulo 360 first), libm in double.
 * This and vmath_trig_patch are plain static functions, not inline: the compiler keeps the rare
 * path out of the kernels' loops where it is called from several places (every file including
 * this header uses them). */
static void vmath_sincos_double(double h, int degrees, double *s, double *c)
{
    if (degrees) h = fmod(h, 360.0) * (3.14159265358979323846 / 180.0);
    *s = sin(h);
    *c = cos(h);
}

/* The lanes of t set in `lanes` (vm_bits order), those where vmath_trig_ok(h, degrees) fails
 * (large or non-finite h): sine and cosine of h by vmath_sincos_double, rounded to float. */
static void vmath_trig_patch(vtrig *t, vf h, unsigned lanes, int degrees)
{
    float hs[SKS_W], s[SKS_W], c[SKS_W];
    unsigned lane;
    vf_store(hs, h);
    vf_store(s, t->sin);
    vf_store(c, t->cos);
    for (lane = 0; lane < SKS_W; lane++) {
        if (lanes >> lane & 1u) {
            double sd, cd;
            vmath_sincos_double(hs[lane], degrees, &sd, &cd);
            s[lane] = (float)sd;
            c[lane] = (float)cd;
        }
    }
    t->sin = vf_load(s);
    t->cos = vf_load(c);
}

/* An angle m pi/4 + s: m integer-valued (exact), s small. */
typedef struct vangle {
    vf m, s;
} vangle;

/* atan2(y, x) for y, x >= +0 (or NaN) as m pi/4 + s, m in {0, 1, 2}. *t gets the reduced ratio
 * (the small part is +-atan(t)) and *z = t^2: with m = 0, t = y / x and s = atan(t), so callers
 * may use atan(t) / t = vmath_atan_over_t_poly(z). */
static SKS_ALWAYS_INLINE vangle vmath_atan2_pos(vf y, vf x, vf *t_out, vf *z_out)
{
    const vm swap = vf_gt(y, x);
    const vf num = vf_select(swap, x, y), den = vf_select(swap, y, x);
    /* num / den > tan(pi/8): atan(num / den) = pi/4 + atan((num - den) / (num + den)). A zero
     * den (then num = 0 too) divides 0 by the smallest denormal: t = 0 (NaN stays NaN). */
    const vm big = vf_gt(num, vf_mul(den, vf_set1(VMATH_TAN_PI_8)));
    const vf t = vf_div(vf_select(big, vf_sub(num, den), num),
                        vf_max(vf_set1(0x1p-149f), vf_select(big, vf_add(num, den), den)));
    const vf z = vf_mul(t, t);
    vangle a;
    a.m = vf_if(big, vf_set1(1.0f));
    a.s = vmath_atan_poly(t, z);
    /* y > x: pi/2 - angle */
    a.m = vf_select(swap, vf_sub(vf_set1(2.0f), a.m), a.m);
    a.s = vf_select(swap, vf_neg(a.s), a.s);
    *t_out = t;
    *z_out = z;
    return a;
}

/* atan2(y, x) as m pi/4 + s (see the header comment): vmath_atan2_pos of |y|, |x|, reflected. */
static SKS_ALWAYS_INLINE vangle vmath_atan2(vf y, vf x)
{
    const vm xneg = vmath_signbit(x);
    const vf ysign = vf_and(y, vf_set1(-0.0f));
    vf t, z;
    vangle a = vmath_atan2_pos(vf_abs(y), vf_abs(x), &t, &z);
    /* x < 0: pi - angle; y < 0: -angle */
    a.m = vf_select(xneg, vf_sub(vf_set1(4.0f), a.m), a.m);
    a.s = vf_select(xneg, vf_neg(a.s), a.s);
    a.m = vf_xor(a.m, ysign);
    a.s = vf_xor(a.s, ysign);
    return a;
}

/* Exact angle arithmetic in m; the small parts round once. */
static SKS_ALWAYS_INLINE vangle vangle_add(vangle a, vangle b)
{
    vangle r;
    r.m = vf_add(a.m, b.m);
    r.s = vf_add(a.s, b.s);
    return r;
}
static SKS_ALWAYS_INLINE vangle vangle_sub(vangle a, vangle b)
{
    vangle r;
    r.m = vf_sub(a.m, b.m);
    r.s = vf_sub(a.s, b.s);
    return r;
}
static SKS_ALWAYS_INLINE vangle vangle_twice(vangle a)
{
    vangle r;
    r.m = vf_add(a.m, a.m);
    r.s = vf_add(a.s, a.s);
    return r;
}
/* a with its sign flipped in the lanes of `flip` (a mask of -0.0 sign bits or 0). */
static SKS_ALWAYS_INLINE vangle vangle_xorsign(vangle a, vf flip)
{
    vangle r;
    r.m = vf_xor(a.m, flip);
    r.s = vf_xor(a.s, flip);
    return r;
}
static SKS_ALWAYS_INLINE vangle vangle_select(vm m, vangle a, vangle b)
{
    vangle r;
    r.m = vf_select(m, a.m, b.m);
    r.s = vf_select(m, a.s, b.s);
    return r;
}

/* The angle rounded to float32 radians: m P4_HI + (m P4_LO + s). */
static SKS_ALWAYS_INLINE vf vangle_radians(vangle a)
{
    return vf_add(vf_mul(a.m, vf_set1(VMATH_P4_HI)), vf_add(vf_mul(a.m, vf_set1(VMATH_P4_LO)), a.s));
}

/* The angle rounded to float32 degrees: 45 m + s 180/pi. */
static SKS_ALWAYS_INLINE vf vangle_degrees(vangle a)
{
    return vf_add(vf_mul(a.m, vf_set1(45.0f)), vf_mul(a.s, vf_set1(VMATH_RAD_TO_DEG)));
}

/* The angle wrapped into [-pi, pi) by a multiple of 2 pi (for |angle| < 3 pi): the comparisons
 * with +-pi are made on (m -+ 4) pi/4 + s, exact in m, so the wrap is decided on the unrounded
 * angle. */
static SKS_ALWAYS_INLINE vangle vangle_wrap(vangle a)
{
    const vf four = vf_set1(4.0f);
    const vf above = vf_sub(a.m, four), below = vf_add(a.m, four);
    const vf hi = vf_add(vf_mul(above, vf_set1(VMATH_P4_HI)), vf_add(vf_mul(above, vf_set1(VMATH_P4_LO)), a.s));
    const vf lo = vf_add(vf_mul(below, vf_set1(VMATH_P4_HI)), vf_add(vf_mul(below, vf_set1(VMATH_P4_LO)), a.s));
    const vf eight = vf_set1(8.0f);
    a.m = vf_sub(a.m, vf_if(vf_ge(hi, vf_zero()), eight));
    a.m = vf_add(a.m, vf_if(vf_lt(lo, vf_zero()), eight));
    return a;
}

/* The lanes holding items 0 .. n-1 of a block in item order (vec.h): on 4-lane targets the
 * first n lanes, on avx2 lanes (0 2 4 6 | 1 3 5 7) hold items (0 .. 7), so vm_first_n would
 * pick the wrong lanes of a tail. */
static SKS_ALWAYS_INLINE vm vmath_first_n_items(size_t n)
{
    static const float iota[8] = {0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f};
    return vf_lt(vf_load_items(iota), vf_set1((float)n));
}

/* The item of a block (vec.h, item order) held by vector lane `lane` (bit `lane` of vm_bits). */
static SKS_ALWAYS_INLINE size_t vmath_item_of_lane(unsigned lane)
{
    return (size_t)(lane % 4u) * SKS_ROWS + lane / 4u;
}

#endif /* SKS_VEC_MATH_H */
