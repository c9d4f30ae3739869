/*
 * blend.c -- slerp, nlerp, blend_joints and blend_layers (see blend.h), each as a scalar, an
 * SSE4.1 (4 lanes) and an AVX2 (8 lanes) variant. Quaternions are processed in SoA after a
 * transpose (seed 003, section 6); every variant evaluates the same float32 operations in the
 * same order (no FMA), so results are bit-identical across variants on finite inputs.
 *
 * slerp, method "fast" (seed 003, section 5, "SlerpOptimized"), per pair with c = dot(q0, q1):
 *     a   = min(|c|, 1)                   shortest arc: q1 is negated (w1 = -w1) when c < 0
 *     s2  = max((1 - a)(1 + a), 1e-14)    sin^2(omega); (1 - a)(1 + a) is exact-ish where the
 *                                         seed's 1 - a^2 cancels
 *     s   = sqrt(s2)                      the seed uses a Newton-refined rsqrt estimate; the
 *                                         correctly rounded sqrt and 1 / s keep the error bound
 *     omega = atan2(s, a)                 the seed's ATanPositive: the smaller of (s, a) over the
 *                                         larger, degree-17 odd polynomial, + pi/2 when s > a
 *     w0  = sin((1 - t) omega) (1 / s),  w1 = sin(t omega) (1 / s)    the seed's SinZeroHalfPI
 *                                         polynomial (degree 11, no range reduction for t in
 *                                         [0, 1]; a Cody-Waite reduction mod pi otherwise)
 *     out = w0 q0 + w1 q1
 *   Both polynomials are evaluated in Estrin's scheme (see sin_poly_scalar) and 1 / s is formed
 *   once, off the critical path, instead of dividing twice: one 8-lane block is a dependency
 *   chain of about 115 cycles instead of 170, and the loop is bound by that chain times the
 *   blocks the out-of-order window holds (1024 pairs, kernel alone: AVX2 2.38 -> 2.12 ns per
 *   pair, SSE4.1 8.1 -> 6.8; measured side by side in one run). The AVX2 loop keeps the
 *   quaternions in memory order and runs 8 blocks side by side (see slerp8_stage1): kernel
 *   alone 2.02 -> 1.76 ns per pair, through the Python call 2.31 -> 2.10 (one run each).
 *   The seed switches to linear weights when 1 - |c| <= 1e-6; that shortcut alone costs up to
 *   2.5e-7 (it drops the Omega^2 t (1 - t) / 2 term). Here no branch is needed: the weights'
 *   ratio is insensitive to the rounding of small angles and the 1e-14 floor keeps s > 0, so
 *   identical and (anti)parallel pairs give w0 = 1 - t, w1 = t up to rounding, never NaN.
 *   Error (unit inputs, t in [0, 1], any pair): <= 5e-7 max abs, 2.74e-7 measured over 8M pairs
 *   including near-parallel, identical and antipodal ones (2.7e-7 with Horner's scheme and two
 *   divisions). For t outside [0, 1] the reduction keeps the result on the great circle
 *   (extrapolation), error <= 5e-7 max(1, |t|, |1 - t|) (2.6e-7 measured).
 * slerp, method "exact": the careful trigonometric slerp, omega = 2 atan2(|q0 - q1'|, |q0 + q1'|)
 *   (accurate at every angle, unlike acos), w0 = sin((1 - t) omega) / sin(omega),
 *   w1 = sin(t omega) / sin(omega) (linear weights only when omega == 0), evaluated in double
 *   precision from the float32 inputs with libm and rounded once: the error is the final
 *   float32 rounding (<= 3e-7 contract, 6e-8 measured). A float32 libm version measured 2.4e-7,
 *   too close to the contract. No SIMD form (libm is scalar): every row runs the scalar code.
 * nlerp (the seed's Lerp): v = (1 - t) q0 + (+-t) q1, out = v (1 / sqrt(|v|^2)) (one division
 *   per quaternion, not one per component: the divider bound the loop; 1024 pairs, kernel
 *   alone: AVX2 1.42 -> 1.25 ns per pair; the AVX2 loop in memory order, two-stage pipelined:
 *   1.19 -> 1.07, but 1.39 -> 1.41 through the Python call, i.e. no gain there); |v|^2
 *   outside [1e-30, 1e30] takes sks_quat_normalize_scalar (|v| == 0 gives (0, 0, 0, 1)). Error <= 2e-7 (1.43e-7 measured
 *   over 8M special pairs, the same as with four divisions) for unit inputs.
 * Translation and scale (blend_joints): a + t (b - a), so equal inputs (e.g. unit scales) stay
 *   exact.
 * blend_layers: running hemisphere alignment (ozz-animation's rule), weighted sums in layer
 *   order, quaternion normalised, translation and scale multiplied by 1 / (total weight).
 * Non-unit quaternions: slerp uses the raw dot product as the cosine (clamped), so it assumes
 *   unit inputs; its result is finite for any finite input. nlerp and blend_layers normalise.
 */
#include "blend.h"

#include "quatmath.h"

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

/* ------------------------------------------------------------------------------------------
 * Scalar building blocks
 * ------------------------------------------------------------------------------------------ */

/* Polynomials are evaluated in Estrin's scheme (independent pairs c_i + c_(i+1) s combined with
 * s^2 and s^4) rather than Horner's: same coefficients, a dependency chain of 25 instead of 36
 * cycles (sine) and 27 instead of 57 (arctangent) on this machine, which is what bounds slerp.
 * The powers use the variable floored at a small value (ESTRIN_S_MIN): below it every term past
 * the linear one is far under half an ulp of the leading 1, and the floor keeps s^2 and s^4
 * away from denormals and underflow (slow on some CPUs) for tiny angles. */
#define SIN_S_MIN 1e-12f
#define ATAN_S_MIN 1e-8f

/* sin(a) for |a| <= pi/2 (seed 003's SinZeroHalfPI, odd, abs error 2.3e-9):
 * a (p01 + s^2 (p23 + s^2 p45)) with s = a^2, p01 = 1 + C4 s, p23 = C3 + C2 s', p45 = C1 + C0 s'
 * and s' = max(s, SIN_S_MIN). */
static inline float sin_poly_scalar(float a)
{
    const float s = a * a;
    const float sh = (SIN_S_MIN > s) ? SIN_S_MIN : s;
    const float s2 = sh * sh;
    const float p01 = SIN_C4 * s + 1.0f, p23 = SIN_C2 * sh + SIN_C3, p45 = SIN_C0 * sh + SIN_C1;
    return ((p45 * s2 + p23) * s2 + p01) * a;
}

/* sin(x) for any x: x = k pi + r, |r| <= pi/2, sin(x) = (-1)^k sin(r). r is clamped to
 * [-pi/2, pi/2], so even absurd arguments give a value in [-1, 1] (NaN stays NaN). For
 * |x| <= pi/2 (k = 0) this is exactly sin_poly_scalar(x), so the SIMD variants can take this path
 * for a whole block when one lane needs it. */
static inline float sin_reduced_scalar(float x)
{
    const float k = fabsf(x) <= HALF_PI ? 0.0f : rintf(x * INV_PI);
    float r = ((x - k * PI_A) - k * PI_B) - k * PI_C;
    float v;
    r = (-HALF_PI > r) ? -HALF_PI : r;
    r = (HALF_PI < r) ? HALF_PI : r;
    v = sin_poly_scalar(r);
    if (fabsf(k) < 2147483648.0f && ((int32_t)k & 1)) v = -v;
    return v;
}

/* atan2(y, x) for y, x >= 0, not both 0 (seed 003's ATanPositive, abs error 1.4e-8): z = the
 * smaller over the larger (negated when swapped), P(z^2) z (+ pi/2 when swapped) with the
 * degree-8 polynomial P(s) = (p0 + s^2 p1) + s^4 ((p2 + s^2 p3) + s^4 C0), p0 = 1 + C7 s,
 * p1 = C6 + C5 s', p2 = C4 + C3 s', p3 = C2 + C1 s', s' = max(s, ATAN_S_MIN). */
static inline float atan_positive_scalar(float y, float x)
{
    const int swap = y > x;
    const float z = (swap ? -x : y) / (swap ? y : x);
    const float s = z * z;
    const float sh = (ATAN_S_MIN > s) ? ATAN_S_MIN : s;
    const float s2 = sh * sh, s4 = s2 * s2;
    const float p0 = ATAN_C7 * s + 1.0f, p1 = ATAN_C5 * sh + ATAN_C6;
    const float p2 = ATAN_C3 * sh + ATAN_C4, p3 = ATAN_C1 * sh + ATAN_C2;
    const float lo = p1 * s2 + p0, hi = (p3 * s2 + p2) + (ATAN_C0 * s4) ;
    return (hi * s4 + lo) * z + (swap ? HALF_PI : 0.0f);
}

/* The fast slerp weights for cosine c and parameter t (w1 carries the shortest-arc sign). */
static inline void slerp_fast_weights_scalar(float c, float t, float *w0, float *w1)
{
    const float abs_c = fabsf(c);
    const float a = (1.0f < abs_c) ? 1.0f : abs_c;
    const float s2_raw = (1.0f - a) * (1.0f + a);
    const float s2 = (SIN2_MIN > s2_raw) ? SIN2_MIN : s2_raw;
    const float s = sqrtf(s2);
    const float omega = atan_positive_scalar(s, a);
    const float x0 = (1.0f - t) * omega, x1 = t * omega;
    const int in_range = t >= 0.0f && t <= 1.0f;
    const float f0 = in_range ? sin_poly_scalar(x0) : sin_reduced_scalar(x0);
    const float f1 = in_range ? sin_poly_scalar(x1) : sin_reduced_scalar(x1);
    const float inv_s = 1.0f / s;
    *w0 = f0 * inv_s;
    *w1 = signbit(c) ? -(f1 * inv_s) : f1 * inv_s;
}

/* o = w0 a + w1 b; o may alias a or b. */
static inline void quat_combine_scalar(float *o, const float *a, const float *b, float w0, float w1)
{
    float r[4];
    int i;
    for (i = 0; i < 4; i++) r[i] = w0 * a[i] + w1 * b[i];
    memcpy(o, r, sizeof r);
}

static inline void slerp_fast_one_scalar(float *o, const float *a, const float *b, float t)
{
    float w0, w1;
    slerp_fast_weights_scalar(sks_quat_dot_scalar(a, b), t, &w0, &w1);
    quat_combine_scalar(o, a, b, w0, w1);
}

/* The careful slerp: the angle, the weights and the combination in double precision from the
 * float32 inputs, rounded once at the end. */
static inline void slerp_exact_one_scalar(float *o, const float *a, const float *b, float t)
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

static inline void nlerp_one_scalar(float *o, const float *a, const float *b, float t)
{
    const float w1 = signbit(sks_quat_dot_scalar(a, b)) ? -t : t;
    float v[4], n2;
    int i;
    quat_combine_scalar(v, a, b, 1.0f - t, w1);
    n2 = sks_quat_dot_scalar(v, v);
    if (n2 >= SKS_NORM2_MIN && n2 <= SKS_NORM2_MAX) {
        const float inv_len = 1.0f / sqrtf(n2);
        for (i = 0; i < 4; i++) o[i] = v[i] * inv_len;
    } else {
        sks_quat_normalize_scalar(o, v);   /* zero, tiny, huge or non-finite |v|^2 */
    }
}

/* Translation and scale: o = a + t (b - a) on 4 floats; o may alias a or b. */
static inline void lerp4_scalar(float *o, const float *a, const float *b, float t)
{
    float r[4];
    int i;
    for (i = 0; i < 4; i++) r[i] = a[i] + t * (b[i] - a[i]);
    memcpy(o, r, sizeof r);
}

static inline void blend_joint_one_scalar(float *o, const float *a, const float *b, float t,
                                          int method)
{
    switch (method) {
    case SKS_INTERP_EXACT: slerp_exact_one_scalar(o, a, b, t); break;
    case SKS_INTERP_NLERP: nlerp_one_scalar(o, a, b, t); break;
    default: slerp_fast_one_scalar(o, a, b, t); break;
    }
    lerp4_scalar(o + 4, a + 4, b + 4, t);
}

/* ------------------------------------------------------------------------------------------
 * Scalar variants
 * ------------------------------------------------------------------------------------------ */

static void slerp_fast_scalar(float *out, const float *q0, size_t q0_step, const float *q1,
                              size_t q1_step, const float *t, size_t t_step, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        slerp_fast_one_scalar(out + 4 * i, q0 + 4 * q0_step * i, q1 + 4 * q1_step * i, t[t_step * i]);
}

static void slerp_exact_scalar(float *out, const float *q0, size_t q0_step, const float *q1,
                               size_t q1_step, const float *t, size_t t_step, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        slerp_exact_one_scalar(out + 4 * i, q0 + 4 * q0_step * i, q1 + 4 * q1_step * i, t[t_step * i]);
}

static void nlerp_scalar(float *out, const float *q0, size_t q0_step, const float *q1,
                         size_t q1_step, const float *t, size_t t_step, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        nlerp_one_scalar(out + 4 * i, q0 + 4 * q0_step * i, q1 + 4 * q1_step * i, t[t_step * i]);
}

/* Blends the selected joints of one pose (0 < t < 1 or NaN): joints index[k] (or k when index is
 * NULL) for k < nsel. One function per variant. */
typedef void (*blend_run_fn)(float *o, const float *a, const float *b, float t,
                             const int32_t *index, size_t nsel, int method);

static inline size_t joint_at(const int32_t *index, size_t k)
{
    return index ? (size_t)index[k] : k;
}

static void blend_run_scalar(float *o, const float *a, const float *b, float t,
                             const int32_t *index, size_t nsel, int method)
{
    size_t k;
    for (k = 0; k < nsel; k++) {
        const size_t j = 8 * joint_at(index, k);
        blend_joint_one_scalar(o + j, a + j, b + j, t, method);
    }
}

/* The pose loop shared by every variant: the seed's shortcuts, the copies of the joints that are
 * not selected, then `run` on the selected ones. */
static inline void blend_joints_driver(blend_run_fn run, float *out, const float *joints,
                                       size_t joints_step, const float *blend, size_t blend_step,
                                       const float *t, size_t t_step, size_t npose,
                                       size_t njoints, const int32_t *index, size_t nindex,
                                       int method)
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
            for (k = 0; k < nsel; k++) {
                const size_t j = 8 * joint_at(index, k);
                memcpy(o + j, b + j, 8 * sizeof(float));
            }
            continue;
        }
        run(o, a, b, tp, index, nsel, method);
    }
}

static void blend_joints_scalar(float *out, const float *joints, size_t joints_step,
                                const float *blend, size_t blend_step, const float *t,
                                size_t t_step, size_t npose, size_t njoints, const int32_t *index,
                                size_t nindex, int method)
{
    blend_joints_driver(blend_run_scalar, out, joints, joints_step, blend, blend_step, t, t_step,
                        npose, njoints, index, nindex, method);
}

/* One joint of blend_layers: layer l's joint at x + l * layer_floats, weight w[l * w_stride]. */
static inline void blend_layers_one_scalar(float *o, const float *x, size_t layer_floats,
                                           size_t nlayers, const float *w, size_t w_stride)
{
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0}, total = 0.0f;
    size_t l;
    int i;
    for (l = 0; l < nlayers; l++) {
        const float *y = x + l * layer_floats;
        const float wl = w[l * w_stride];
        const float wq = sks_quat_dot_scalar(acc, y) < 0.0f ? -wl : wl;
        for (i = 0; i < 4; i++) acc[i] = acc[i] + wq * y[i];
        for (i = 4; i < 8; i++) acc[i] = acc[i] + wl * y[i];
        total = total + wl;
    }
    sks_quat_normalize_scalar(o, acc);
    {
        const float inv_total = 1.0f / total;
        for (i = 4; i < 8; i++) o[i] = acc[i] * inv_total;
    }
}

static void blend_layers_scalar(float *out, const float *layers, size_t npose, size_t nlayers,
                                size_t njoints, const float *weights, size_t layer_stride,
                                size_t joint_step)
{
    const size_t pose = 8 * njoints;
    size_t p, j;
    for (p = 0; p < npose; p++) {
        for (j = 0; j < njoints; j++) {
            blend_layers_one_scalar(out + p * pose + 8 * j, layers + p * nlayers * pose + 8 * j, pose,
                                    nlayers, weights + j * joint_step, layer_stride);
        }
    }
}

#if SKS_HAVE_X86_SIMD
/* ------------------------------------------------------------------------------------------
 * SSE4.1 building blocks: the scalar formulas on four lanes
 * ------------------------------------------------------------------------------------------ */

/* c + m s on four lanes: one Estrin pair (c + s m in the scalar code's order m s + c). */
SKS_TARGET_SSE41 static inline __m128 poly_pair_sse41(float m, __m128 s, float c)
{
    return _mm_add_ps(_mm_mul_ps(_mm_set1_ps(m), s), _mm_set1_ps(c));
}

SKS_TARGET_SSE41 static inline __m128 sin_poly_sse41(__m128 a)
{
    const __m128 s = _mm_mul_ps(a, a);
    const __m128 sh = _mm_max_ps(_mm_set1_ps(SIN_S_MIN), s);
    const __m128 s2 = _mm_mul_ps(sh, sh);
    const __m128 p01 = poly_pair_sse41(SIN_C4, s, 1.0f), p23 = poly_pair_sse41(SIN_C2, sh, SIN_C3);
    const __m128 p45 = poly_pair_sse41(SIN_C0, sh, SIN_C1);
    const __m128 q = _mm_add_ps(_mm_mul_ps(_mm_add_ps(_mm_mul_ps(p45, s2), p23), s2), p01);
    return _mm_mul_ps(q, a);
}

SKS_TARGET_SSE41 static inline __m128 sin_reduced_sse41(__m128 x)
{
    const __m128 small = _mm_cmple_ps(_mm_andnot_ps(_mm_set1_ps(-0.0f), x), _mm_set1_ps(HALF_PI));
    const __m128 k = _mm_andnot_ps(small, _mm_round_ps(_mm_mul_ps(x, _mm_set1_ps(INV_PI)),
                                                       _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    __m128 r = _mm_sub_ps(_mm_sub_ps(_mm_sub_ps(x, _mm_mul_ps(k, _mm_set1_ps(PI_A))),
                                     _mm_mul_ps(k, _mm_set1_ps(PI_B))),
                          _mm_mul_ps(k, _mm_set1_ps(PI_C)));
    const __m128i odd = _mm_slli_epi32(_mm_and_si128(_mm_cvtps_epi32(k), _mm_set1_epi32(1)), 31);
    r = _mm_max_ps(_mm_set1_ps(-HALF_PI), r);
    r = _mm_min_ps(_mm_set1_ps(HALF_PI), r);
    return _mm_xor_ps(sin_poly_sse41(r), _mm_castsi128_ps(odd));
}

SKS_TARGET_SSE41 static inline __m128 atan_positive_sse41(__m128 y, __m128 x)
{
    const __m128 swap = _mm_cmpgt_ps(y, x);
    const __m128 neg_x = _mm_xor_ps(x, _mm_set1_ps(-0.0f));
    const __m128 z = _mm_div_ps(_mm_blendv_ps(y, neg_x, swap), _mm_blendv_ps(x, y, swap));
    const __m128 s = _mm_mul_ps(z, z);
    const __m128 sh = _mm_max_ps(_mm_set1_ps(ATAN_S_MIN), s);
    const __m128 s2 = _mm_mul_ps(sh, sh), s4 = _mm_mul_ps(s2, s2);
    const __m128 p0 = poly_pair_sse41(ATAN_C7, s, 1.0f), p1 = poly_pair_sse41(ATAN_C5, sh, ATAN_C6);
    const __m128 p2 = poly_pair_sse41(ATAN_C3, sh, ATAN_C4), p3 = poly_pair_sse41(ATAN_C1, sh, ATAN_C2);
    const __m128 lo = _mm_add_ps(_mm_mul_ps(p1, s2), p0);
    const __m128 hi = _mm_add_ps(_mm_add_ps(_mm_mul_ps(p3, s2), p2), _mm_mul_ps(_mm_set1_ps(ATAN_C0), s4));
    return _mm_add_ps(_mm_mul_ps(_mm_add_ps(_mm_mul_ps(hi, s4), lo), z), _mm_and_ps(swap, _mm_set1_ps(HALF_PI)));
}

SKS_TARGET_SSE41 static inline sks_quat4 quat4_combine(sks_quat4 a, sks_quat4 b, __m128 w0, __m128 w1)
{
    sks_quat4 r;
    r.x = _mm_add_ps(_mm_mul_ps(w0, a.x), _mm_mul_ps(w1, b.x));
    r.y = _mm_add_ps(_mm_mul_ps(w0, a.y), _mm_mul_ps(w1, b.y));
    r.z = _mm_add_ps(_mm_mul_ps(w0, a.z), _mm_mul_ps(w1, b.z));
    r.w = _mm_add_ps(_mm_mul_ps(w0, a.w), _mm_mul_ps(w1, b.w));
    return r;
}

SKS_TARGET_SSE41 static inline sks_quat4 slerp_fast_sse41(sks_quat4 a, sks_quat4 b, __m128 t)
{
    const __m128 one = _mm_set1_ps(1.0f), sign_bit = _mm_set1_ps(-0.0f);
    const __m128 c = sks_quat4_dot(a, b);
    const __m128 av = _mm_min_ps(one, _mm_andnot_ps(sign_bit, c));
    const __m128 s2 = _mm_max_ps(_mm_set1_ps(SIN2_MIN), _mm_mul_ps(_mm_sub_ps(one, av), _mm_add_ps(one, av)));
    const __m128 s = _mm_sqrt_ps(s2);
    const __m128 omega = atan_positive_sse41(s, av);
    const __m128 x0 = _mm_mul_ps(_mm_sub_ps(one, t), omega), x1 = _mm_mul_ps(t, omega);
    const int in_range = _mm_movemask_ps(_mm_and_ps(_mm_cmpge_ps(t, _mm_setzero_ps()), _mm_cmple_ps(t, one))) == 0xF;
    const __m128 f0 = in_range ? sin_poly_sse41(x0) : sin_reduced_sse41(x0);
    const __m128 f1 = in_range ? sin_poly_sse41(x1) : sin_reduced_sse41(x1);
    const __m128 inv_s = _mm_div_ps(one, s);
    const __m128 w0 = _mm_mul_ps(f0, inv_s);
    const __m128 w1 = _mm_xor_ps(_mm_mul_ps(f1, inv_s), _mm_and_ps(sign_bit, c));
    return quat4_combine(a, b, w0, w1);
}

/* nlerp on four lanes; *ok = 0 when a lane's |v|^2 is outside the fast normalisation range (the
 * caller then redoes the block in scalar). */
SKS_TARGET_SSE41 static inline sks_quat4 nlerp_sse41(sks_quat4 a, sks_quat4 b, __m128 t, int *ok)
{
    const __m128 c = sks_quat4_dot(a, b);
    const __m128 w1 = _mm_xor_ps(t, _mm_and_ps(_mm_set1_ps(-0.0f), c));
    sks_quat4 v = quat4_combine(a, b, _mm_sub_ps(_mm_set1_ps(1.0f), t), w1);
    const __m128 n2 = sks_quat4_dot(v, v);
    const __m128 len = _mm_sqrt_ps(n2);
    const __m128 inv_len = _mm_div_ps(_mm_set1_ps(1.0f), len);
    *ok = _mm_movemask_ps(_mm_and_ps(_mm_cmpge_ps(n2, _mm_set1_ps(SKS_NORM2_MIN)),
                                     _mm_cmple_ps(n2, _mm_set1_ps(SKS_NORM2_MAX)))) == 0xF;
    v.x = _mm_mul_ps(v.x, inv_len);
    v.y = _mm_mul_ps(v.y, inv_len);
    v.z = _mm_mul_ps(v.z, inv_len);
    v.w = _mm_mul_ps(v.w, inv_len);
    return v;
}

/* ------------------------------------------------------------------------------------------
 * SSE4.1 variants
 * ------------------------------------------------------------------------------------------ */

/* One interpolation loop for slerp "fast" and nlerp: four pairs per step (a step with an
 * out-of-range nlerp lane is redone in scalar), scalar tail. */
SKS_TARGET_SSE41 static inline void interp_sse41(float *out, const float *q0, size_t q0_step,
                                                 const float *q1, size_t q1_step, const float *t,
                                                 size_t t_step, size_t n, int method)
{
    const sks_interp_fn tail = method == SKS_INTERP_NLERP ? nlerp_scalar : slerp_fast_scalar;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const sks_quat4 a = sks_quat4_load(q0 + 4 * q0_step * i, 4 * q0_step);
        const sks_quat4 b = sks_quat4_load(q1 + 4 * q1_step * i, 4 * q1_step);
        const __m128 tv = t_step ? _mm_loadu_ps(t + i) : _mm_set1_ps(t[0]);
        int ok = 1;
        const sks_quat4 r = method == SKS_INTERP_NLERP ? nlerp_sse41(a, b, tv, &ok) : slerp_fast_sse41(a, b, tv);
        if (ok) {
            sks_quat4_store(out + 4 * i, 4, r);
        } else {
            tail(out + 4 * i, q0 + 4 * q0_step * i, q0_step, q1 + 4 * q1_step * i, q1_step,
                 t + t_step * i, t_step, 4);
        }
    }
    tail(out + 4 * i, q0 + 4 * q0_step * i, q0_step, q1 + 4 * q1_step * i, q1_step, t + t_step * i,
         t_step, n - i);
}

SKS_TARGET_SSE41 static void slerp_fast_sse41_kernel(float *out, const float *q0, size_t q0_step,
                                                     const float *q1, size_t q1_step, const float *t,
                                                     size_t t_step, size_t n)
{
    interp_sse41(out, q0, q0_step, q1, q1_step, t, t_step, n, SKS_INTERP_FAST);
}

SKS_TARGET_SSE41 static void nlerp_sse41_kernel(float *out, const float *q0, size_t q0_step,
                                                const float *q1, size_t q1_step, const float *t,
                                                size_t t_step, size_t n)
{
    interp_sse41(out, q0, q0_step, q1, q1_step, t, t_step, n, SKS_INTERP_NLERP);
}

/* Four selected joints at a time: quaternions and (t, s) halves transposed to SoA. */
SKS_TARGET_SSE41 static void blend_run_sse41(float *o, const float *a, const float *b, float t,
                                             const int32_t *index, size_t nsel, int method)
{
    const __m128 tv = _mm_set1_ps(t);
    size_t k = 0;
    if (method == SKS_INTERP_EXACT) {
        blend_run_scalar(o, a, b, t, index, nsel, method);
        return;
    }
    for (; k + 4 <= nsel; k += 4) {
        size_t j[4];
        __m128 qa[4], qb[4], ta[4], tb[4];
        sks_quat4 sa, sb, r;
        int l, ok = 1;
        for (l = 0; l < 4; l++) {
            j[l] = 8 * joint_at(index, k + l);
            qa[l] = _mm_loadu_ps(a + j[l]);
            ta[l] = _mm_loadu_ps(a + j[l] + 4);
            qb[l] = _mm_loadu_ps(b + j[l]);
            tb[l] = _mm_loadu_ps(b + j[l] + 4);
        }
        _MM_TRANSPOSE4_PS(qa[0], qa[1], qa[2], qa[3]);
        _MM_TRANSPOSE4_PS(qb[0], qb[1], qb[2], qb[3]);
        sa.x = qa[0]; sa.y = qa[1]; sa.z = qa[2]; sa.w = qa[3];
        sb.x = qb[0]; sb.y = qb[1]; sb.z = qb[2]; sb.w = qb[3];
        r = method == SKS_INTERP_NLERP ? nlerp_sse41(sa, sb, tv, &ok) : slerp_fast_sse41(sa, sb, tv);
        if (!ok) {
            for (l = 0; l < 4; l++) blend_joint_one_scalar(o + j[l], a + j[l], b + j[l], t, method);
            continue;
        }
        _MM_TRANSPOSE4_PS(r.x, r.y, r.z, r.w);
        qa[0] = r.x; qa[1] = r.y; qa[2] = r.z; qa[3] = r.w;
        for (l = 0; l < 4; l++) {
            const __m128 lerp = _mm_add_ps(ta[l], _mm_mul_ps(tv, _mm_sub_ps(tb[l], ta[l])));
            _mm_storeu_ps(o + j[l], qa[l]);
            _mm_storeu_ps(o + j[l] + 4, lerp);
        }
    }
    for (; k < nsel; k++) {
        const size_t j = 8 * joint_at(index, k);
        blend_joint_one_scalar(o + j, a + j, b + j, t, method);
    }
}

SKS_TARGET_SSE41 static void blend_joints_sse41(float *out, const float *joints, size_t joints_step,
                                                const float *blend, size_t blend_step,
                                                const float *t, size_t t_step, size_t npose,
                                                size_t njoints, const int32_t *index,
                                                size_t nindex, int method)
{
    blend_joints_driver(blend_run_sse41, out, joints, joints_step, blend, blend_step, t, t_step,
                        npose, njoints, index, nindex, method);
}

/* One joint per step: quaternion and (t, s) halves in two registers; the dot product in the
 * pairwise order (x x' + z z') + (y y' + w w') of the scalar code. */
SKS_TARGET_SSE41 static inline __m128 dot4_splat_sse41(__m128 a, __m128 b)
{
    const __m128 m = _mm_mul_ps(a, b);
    const __m128 h = _mm_add_ps(m, _mm_movehl_ps(m, m));          /* (xx+zz, yy+ww, ..) */
    return SKS_SPLAT_LANE(_mm_add_ps(h, _mm_shuffle_ps(h, h, _MM_SHUFFLE(1, 1, 1, 1))), 0);
}

/* One joint of blend_layers (see blend_layers_one_scalar) with the quaternion and the
 * (t, s) half in two registers. */
SKS_TARGET_SSE41 static inline void blend_layers_one_sse41(float *o, const float *x, size_t layer_floats,
                                                           size_t nlayers, const float *w, size_t w_stride)
{
    const __m128 sign_bit = _mm_set1_ps(-0.0f), zero = _mm_setzero_ps();
    __m128 acc_q = zero, acc_ts = zero, total = zero, n2;
    size_t l;
    for (l = 0; l < nlayers; l++) {
        const __m128 q = _mm_loadu_ps(x + l * layer_floats), ts = _mm_loadu_ps(x + l * layer_floats + 4);
        const __m128 wl = _mm_set1_ps(w[l * w_stride]);
        const __m128 flip = _mm_and_ps(_mm_cmplt_ps(dot4_splat_sse41(acc_q, q), zero), sign_bit);
        acc_q = _mm_add_ps(acc_q, _mm_mul_ps(_mm_xor_ps(wl, flip), q));
        acc_ts = _mm_add_ps(acc_ts, _mm_mul_ps(wl, ts));
        total = _mm_add_ps(total, wl);
    }
    n2 = dot4_splat_sse41(acc_q, acc_q);
    if (_mm_cvtss_f32(n2) >= SKS_NORM2_MIN && _mm_cvtss_f32(n2) <= SKS_NORM2_MAX) {
        _mm_storeu_ps(o, _mm_div_ps(acc_q, _mm_sqrt_ps(n2)));
    } else {
        float q[4];
        _mm_storeu_ps(q, acc_q);
        sks_quat_normalize_scalar(o, q);
    }
    _mm_storeu_ps(o + 4, _mm_mul_ps(acc_ts, _mm_div_ps(_mm_set1_ps(1.0f), total)));
}

SKS_TARGET_SSE41 static void blend_layers_sse41(float *out, const float *layers, size_t npose,
                                                size_t nlayers, size_t njoints,
                                                const float *weights, size_t layer_stride,
                                                size_t joint_step)
{
    const size_t pose = 8 * njoints;
    size_t p, j;
    for (p = 0; p < npose; p++) {
        for (j = 0; j < njoints; j++) {
            blend_layers_one_sse41(out + p * pose + 8 * j, layers + p * nlayers * pose + 8 * j, pose,
                                   nlayers, weights + j * joint_step, layer_stride);
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * AVX2 building blocks: the scalar formulas on eight lanes, for `nb` independent blocks of eight
 * at once. One block of slerp is a ~130-cycle dependency chain (square root, three divisions,
 * two polynomials); writing every step as a short loop over the blocks puts the independent
 * chains side by side in program order, so the core overlaps them (16384 pairs: a block at a
 * time 4.2 ns per pair, four blocks 2.4 ns; 3 to 5 blocks measure the same within noise).
 * ------------------------------------------------------------------------------------------ */

#define AVX2_BLOCKS 4
/* 8-pair blocks the AVX2 slerp computes side by side (see slerp8_stage1). */
#define SLERP_LOCKSTEP 8

/* r[k] = m s[k] + c: one Estrin pair per block. */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void poly_pair_avx2(__m256 *r, float m, const __m256 *s, float c, int nb)
{
    const __m256 mv = _mm256_set1_ps(m), cv = _mm256_set1_ps(c);
    int k;
    for (k = 0; k < nb; k++) r[k] = _mm256_add_ps(_mm256_mul_ps(mv, s[k]), cv);
}

/* r[k] = sin(a[k]) for |a| <= pi/2 (sin_poly_scalar) */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void sin_poly_avx2(__m256 *r, const __m256 *a, int nb)
{
    __m256 s[AVX2_BLOCKS], sh[AVX2_BLOCKS], s2[AVX2_BLOCKS];
    __m256 p01[AVX2_BLOCKS], p23[AVX2_BLOCKS], p45[AVX2_BLOCKS];
    int k;
    for (k = 0; k < nb; k++) {
        s[k] = _mm256_mul_ps(a[k], a[k]);
        sh[k] = _mm256_max_ps(_mm256_set1_ps(SIN_S_MIN), s[k]);
        s2[k] = _mm256_mul_ps(sh[k], sh[k]);
    }
    poly_pair_avx2(p01, SIN_C4, s, 1.0f, nb);
    poly_pair_avx2(p23, SIN_C2, sh, SIN_C3, nb);
    poly_pair_avx2(p45, SIN_C0, sh, SIN_C1, nb);
    for (k = 0; k < nb; k++) {
        const __m256 q = _mm256_add_ps(_mm256_mul_ps(p45[k], s2[k]), p23[k]);
        r[k] = _mm256_mul_ps(_mm256_add_ps(_mm256_mul_ps(q, s2[k]), p01[k]), a[k]);
    }
}

/* r[k] = sin(x[k]) for any x (sin_reduced_scalar); the rare path, one block at a time. */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void sin_reduced_avx2(__m256 *r, const __m256 *x, int nb)
{
    int k;
    for (k = 0; k < nb; k++) {
        const __m256 small = _mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), x[k]),
                                           _mm256_set1_ps(HALF_PI), _CMP_LE_OQ);
        const __m256 n = _mm256_andnot_ps(small, _mm256_round_ps(_mm256_mul_ps(x[k], _mm256_set1_ps(INV_PI)),
                                                                 _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        __m256 red = _mm256_sub_ps(_mm256_sub_ps(_mm256_sub_ps(x[k], _mm256_mul_ps(n, _mm256_set1_ps(PI_A))),
                                                 _mm256_mul_ps(n, _mm256_set1_ps(PI_B))),
                                   _mm256_mul_ps(n, _mm256_set1_ps(PI_C)));
        const __m256i odd =
            _mm256_slli_epi32(_mm256_and_si256(_mm256_cvtps_epi32(n), _mm256_set1_epi32(1)), 31);
        red = _mm256_max_ps(_mm256_set1_ps(-HALF_PI), red);
        red = _mm256_min_ps(_mm256_set1_ps(HALF_PI), red);
        sin_poly_avx2(&r[k], &red, 1);
        r[k] = _mm256_xor_ps(r[k], _mm256_castsi256_ps(odd));
    }
}

/* r[k] = atan2(y[k], x[k]) for y, x >= 0 (atan_positive_scalar). */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void atan_positive_avx2(__m256 *r, const __m256 *y,
                                                                 const __m256 *x, int nb)
{
    __m256 swap[AVX2_BLOCKS], z[AVX2_BLOCKS], s[AVX2_BLOCKS], sh[AVX2_BLOCKS], s2[AVX2_BLOCKS];
    __m256 p0[AVX2_BLOCKS], p1[AVX2_BLOCKS], p2[AVX2_BLOCKS], p3[AVX2_BLOCKS];
    int k;
    for (k = 0; k < nb; k++) {
        const __m256 neg_x = _mm256_xor_ps(x[k], _mm256_set1_ps(-0.0f));
        swap[k] = _mm256_cmp_ps(y[k], x[k], _CMP_GT_OQ);
        z[k] = _mm256_div_ps(_mm256_blendv_ps(y[k], neg_x, swap[k]), _mm256_blendv_ps(x[k], y[k], swap[k]));
    }
    for (k = 0; k < nb; k++) {
        s[k] = _mm256_mul_ps(z[k], z[k]);
        sh[k] = _mm256_max_ps(_mm256_set1_ps(ATAN_S_MIN), s[k]);
        s2[k] = _mm256_mul_ps(sh[k], sh[k]);
    }
    poly_pair_avx2(p0, ATAN_C7, s, 1.0f, nb);
    poly_pair_avx2(p1, ATAN_C5, sh, ATAN_C6, nb);
    poly_pair_avx2(p2, ATAN_C3, sh, ATAN_C4, nb);
    poly_pair_avx2(p3, ATAN_C1, sh, ATAN_C2, nb);
    for (k = 0; k < nb; k++) {
        const __m256 s4 = _mm256_mul_ps(s2[k], s2[k]);
        const __m256 lo = _mm256_add_ps(_mm256_mul_ps(p1[k], s2[k]), p0[k]);
        const __m256 hi = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(p3[k], s2[k]), p2[k]),
                                        _mm256_mul_ps(_mm256_set1_ps(ATAN_C0), s4));
        r[k] = _mm256_add_ps(_mm256_mul_ps(_mm256_add_ps(_mm256_mul_ps(hi, s4), lo), z[k]),
                             _mm256_and_ps(swap[k], _mm256_set1_ps(HALF_PI)));
    }
}

SKS_TARGET_AVX2 static inline sks_quat8 quat8_combine(sks_quat8 a, sks_quat8 b, __m256 w0, __m256 w1)
{
    sks_quat8 r;
    r.x = _mm256_add_ps(_mm256_mul_ps(w0, a.x), _mm256_mul_ps(w1, b.x));
    r.y = _mm256_add_ps(_mm256_mul_ps(w0, a.y), _mm256_mul_ps(w1, b.y));
    r.z = _mm256_add_ps(_mm256_mul_ps(w0, a.z), _mm256_mul_ps(w1, b.z));
    r.w = _mm256_add_ps(_mm256_mul_ps(w0, a.w), _mm256_mul_ps(w1, b.w));
    return r;
}

SKS_TARGET_AVX2 static inline int t_in_unit_range_avx2(__m256 t)
{
    const __m256 ok = _mm256_and_ps(_mm256_cmp_ps(t, _mm256_setzero_ps(), _CMP_GE_OQ),
                                    _mm256_cmp_ps(t, _mm256_set1_ps(1.0f), _CMP_LE_OQ));
    return _mm256_movemask_ps(ok) == 0xFF;
}

/* r[k] = fast slerp(a[k], b[k], t[k]) for nb blocks (slerp_fast_weights_scalar). */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void slerp_fast_avx2(sks_quat8 *r, const sks_quat8 *a,
                                                              const sks_quat8 *b, const __m256 *t,
                                                              int nb)
{
    const __m256 one = _mm256_set1_ps(1.0f), sign_bit = _mm256_set1_ps(-0.0f);
    __m256 c[AVX2_BLOCKS], av[AVX2_BLOCKS], s[AVX2_BLOCKS], omega[AVX2_BLOCKS];
    __m256 x0[AVX2_BLOCKS], x1[AVX2_BLOCKS], f0[AVX2_BLOCKS], f1[AVX2_BLOCKS];
    int k, in_range = 1;
    for (k = 0; k < nb; k++) {
        c[k] = sks_quat8_dot(a[k], b[k]);
        in_range &= t_in_unit_range_avx2(t[k]);
    }
    for (k = 0; k < nb; k++) {
        av[k] = _mm256_min_ps(one, _mm256_andnot_ps(sign_bit, c[k]));
        s[k] = _mm256_sqrt_ps(_mm256_max_ps(_mm256_set1_ps(SIN2_MIN),
                                            _mm256_mul_ps(_mm256_sub_ps(one, av[k]), _mm256_add_ps(one, av[k]))));
    }
    atan_positive_avx2(omega, s, av, nb);
    for (k = 0; k < nb; k++) {
        x0[k] = _mm256_mul_ps(_mm256_sub_ps(one, t[k]), omega[k]);
        x1[k] = _mm256_mul_ps(t[k], omega[k]);
    }
    if (in_range) {
        sin_poly_avx2(f0, x0, nb);
        sin_poly_avx2(f1, x1, nb);
    } else {
        sin_reduced_avx2(f0, x0, nb);
        sin_reduced_avx2(f1, x1, nb);
    }
    for (k = 0; k < nb; k++) {
        const __m256 inv_s = _mm256_div_ps(one, s[k]);
        const __m256 w0 = _mm256_mul_ps(f0[k], inv_s);
        const __m256 w1 = _mm256_xor_ps(_mm256_mul_ps(f1[k], inv_s), _mm256_and_ps(sign_bit, c[k]));
        r[k] = quat8_combine(a[k], b[k], w0, w1);
    }
}

/* r[k] = nlerp(a[k], b[k], t[k]) for nb blocks; returns 0 when a lane's |v|^2 is outside the fast
 * normalisation range (the caller then redoes the blocks in scalar). */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE int nlerp_avx2(sks_quat8 *r, const sks_quat8 *a,
                                                        const sks_quat8 *b, const __m256 *t, int nb)
{
    const __m256 lo = _mm256_set1_ps(SKS_NORM2_MIN), hi = _mm256_set1_ps(SKS_NORM2_MAX);
    __m256 inv_len[AVX2_BLOCKS];
    int k, ok = 1;
    for (k = 0; k < nb; k++) {
        const __m256 w1 = _mm256_xor_ps(t[k], _mm256_and_ps(_mm256_set1_ps(-0.0f), sks_quat8_dot(a[k], b[k])));
        r[k] = quat8_combine(a[k], b[k], _mm256_sub_ps(_mm256_set1_ps(1.0f), t[k]), w1);
    }
    for (k = 0; k < nb; k++) {
        const __m256 n2 = sks_quat8_dot(r[k], r[k]);
        ok &= _mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(n2, lo, _CMP_GE_OQ),
                                               _mm256_cmp_ps(n2, hi, _CMP_LE_OQ))) == 0xFF;
        inv_len[k] = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(n2));
    }
    for (k = 0; k < nb; k++) {
        r[k].x = _mm256_mul_ps(r[k].x, inv_len[k]);
        r[k].y = _mm256_mul_ps(r[k].y, inv_len[k]);
        r[k].z = _mm256_mul_ps(r[k].z, inv_len[k]);
        r[k].w = _mm256_mul_ps(r[k].w, inv_len[k]);
    }
    return ok;
}

/* ------------------------------------------------------------------------------------------
 * AVX2 variants
 * ------------------------------------------------------------------------------------------ */

/* slerp "fast" and nlerp on 1024+ pairs. Two changes against the SoA form of blend_joints:
 *
 * (1) The quaternions stay in memory order (AoS, two per 256-bit register). Only the per-pair
 *     scalars are packed eight to a register ("compact" lane order 0, 2, 4, 6 | 1, 3, 5, 7):
 *     dot8_aos reduces the four products registers with 6 shuffles in the scalar order
 *     (x x' + z z') + (y y' + w w'), and expand8_aos broadcasts a compact weight back to the
 *     quaternions with one in-lane shuffle per register. The combination w0 a + w1 b then runs
 *     on the registers as loaded and is stored as is: 15 shuffles per 8-pair slerp block instead
 *     of 25 (two 4x4 transposes in, one out), and no SoA copies of a and b to keep live (the
 *     4-block SoA loop spilled to the stack). Same operations in the same order: bit-identical.
 * (2) Latency: one slerp block is a ~110-cycle dependency chain (dot, sqrt, division,
 *     arctangent, sine) and the out-of-order core only overlaps the chains it finds in its
 *     window. slerp runs SLERP_LOCKSTEP blocks side by side, each of its three stages (loads, dot
 *     and sqrt; arctangent, sine arguments and 1 / s; sines, weights, combination and store) as
 *     a short loop over the blocks. Tried and measured slower (one run, kernel alone, 1024 pairs;
 *     old 4-block SoA loop 2.02 ns per pair): a software pipeline (stage 1 of block k + 2,
 *     stage 2 of k + 1, stage 3 of k in one loop body) 2.35, two stages 3.2; lockstep with 2, 3,
 *     4, 5, 6 and 8 blocks 2.49, 2.03, 1.92, 1.84, 1.79 and 1.75. nlerp (a ~60-cycle chain) is the
 *     other way round: a two-stage pipeline (sum and |v|^2 of block k + 1 beside
 *     1 / sqrt and store of block k) 1.07, lockstep 1, 2 and 4 blocks 1.11, 1.17 and 1.13 (old
 *     4-block SoA loop 1.18).
 *     An arctangent argument z^2 = s^2 / a^2 (a division instead of the sqrt on the chain) made
 *     the scalar and SSE4.1 rows 6% and 14% faster but AVX2 6% slower: not taken (results would
 *     have changed).
 * Measured, kernel alone, 1024 pairs, AVX2 (see the figures in the comment block at the top). */

/* The k-th register (two quaternions) of the block at p: step 0 repeats one quaternion. */
SKS_TARGET_AVX2 static inline __m256 quat2_load(const float *p, size_t step, int k)
{
    return step ? _mm256_loadu_ps(p + 8 * k) : _mm256_broadcast_ps((const __m128 *)p);
}

/* Eight per-pair values (t) in compact order: step 0 repeats one. */
SKS_TARGET_AVX2 static inline __m256 lanes8_load_or_splat(const float *p, size_t step)
{
    return step ? sks_lanes8_load(p) : _mm256_broadcast_ss(p);
}

/* dot(a_i, b_i) of the eight quaternions in a[0..3] and b[0..3] (register k holds pairs 2k and
 * 2k + 1), compact order, in the scalar order (x x' + z z') + (y y' + w w'). */
SKS_TARGET_AVX2 static inline __m256 dot8_aos(const __m256 a[4], const __m256 b[4])
{
    const __m256 m0 = _mm256_mul_ps(a[0], b[0]), m1 = _mm256_mul_ps(a[1], b[1]);
    const __m256 m2 = _mm256_mul_ps(a[2], b[2]), m3 = _mm256_mul_ps(a[3], b[3]);
    /* (x + z, y + w) of pairs 0, 2 | 1, 3 and 4, 6 | 5, 7 */
    const __m256 h01 = _mm256_add_ps(_mm256_shuffle_ps(m0, m1, _MM_SHUFFLE(1, 0, 1, 0)),
                                     _mm256_shuffle_ps(m0, m1, _MM_SHUFFLE(3, 2, 3, 2)));
    const __m256 h23 = _mm256_add_ps(_mm256_shuffle_ps(m2, m3, _MM_SHUFFLE(1, 0, 1, 0)),
                                     _mm256_shuffle_ps(m2, m3, _MM_SHUFFLE(3, 2, 3, 2)));
    return _mm256_add_ps(_mm256_shuffle_ps(h01, h23, _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm256_shuffle_ps(h01, h23, _MM_SHUFFLE(3, 1, 3, 1)));
}

/* e[k] = the compact values of pairs 2k and 2k + 1, each repeated over its quaternion. */
SKS_TARGET_AVX2 static inline void expand8_aos(__m256 e[4], __m256 v)
{
    e[0] = _mm256_permute_ps(v, 0x00);
    e[1] = _mm256_permute_ps(v, 0x55);
    e[2] = _mm256_permute_ps(v, 0xAA);
    e[3] = _mm256_permute_ps(v, 0xFF);
}

/* r[k] = w0 a[k] + w1 b[k] with compact weights. */
SKS_TARGET_AVX2 static inline void combine8_aos(__m256 r[4], const __m256 a[4], const __m256 b[4],
                                                __m256 w0, __m256 w1)
{
    __m256 e0[4], e1[4];
    int k;
    expand8_aos(e0, w0);
    expand8_aos(e1, w1);
    for (k = 0; k < 4; k++) r[k] = _mm256_add_ps(_mm256_mul_ps(e0[k], a[k]), _mm256_mul_ps(e1[k], b[k]));
}

/* One 8-pair block of an interpolation kernel: where its pairs are. */
typedef struct interp8_block {
    const float *q0, *q1, *t;
    float *out;
} interp8_block;

SKS_TARGET_AVX2 static inline interp8_block interp8_block_at(float *out, const float *q0,
                                                             size_t q0_step, const float *q1,
                                                             size_t q1_step, const float *t,
                                                             size_t t_step, size_t i)
{
    interp8_block blk;
    blk.q0 = q0 + 4 * q0_step * i;
    blk.q1 = q1 + 4 * q1_step * i;
    blk.t = t + t_step * i;
    blk.out = out + 4 * i;
    return blk;
}

/* Pipeline state of one slerp block between stages (compact order). */
typedef struct slerp8_state {
    interp8_block blk;
    __m256 c, av, s, t;          /* after stage 1 */
    __m256 x0, x1, inv_s;        /* after stage 2 */
    int in_range;
} slerp8_state;

/* Stage 1: loads, c = dot(q0, q1), a = min(|c|, 1), s = sqrt(max((1 - a)(1 + a), SIN2_MIN)). */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void slerp8_stage1(slerp8_state *st, interp8_block blk,
                                                             size_t q0_step, size_t q1_step,
                                                             size_t t_step)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 a[4], b[4];
    int k;
    for (k = 0; k < 4; k++) {
        a[k] = quat2_load(blk.q0, q0_step, k);
        b[k] = quat2_load(blk.q1, q1_step, k);
    }
    st->blk = blk;
    st->t = lanes8_load_or_splat(blk.t, t_step);
    st->c = dot8_aos(a, b);
    st->av = _mm256_min_ps(one, _mm256_andnot_ps(_mm256_set1_ps(-0.0f), st->c));
    st->s = _mm256_sqrt_ps(_mm256_max_ps(_mm256_set1_ps(SIN2_MIN),
                                         _mm256_mul_ps(_mm256_sub_ps(one, st->av), _mm256_add_ps(one, st->av))));
}

/* Stage 2: omega = atan2(s, a), the sine arguments (1 - t) omega and t omega, 1 / s. */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void slerp8_stage2(slerp8_state *st)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 omega;
    atan_positive_avx2(&omega, &st->s, &st->av, 1);
    st->x0 = _mm256_mul_ps(_mm256_sub_ps(one, st->t), omega);
    st->x1 = _mm256_mul_ps(st->t, omega);
    st->inv_s = _mm256_div_ps(one, st->s);
    st->in_range = t_in_unit_range_avx2(st->t);
}

/* Stage 3: the sines, w0 = sin(x0) / s, w1 = +-sin(x1) / s, out = w0 q0 + w1 q1 (reloaded). */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void slerp8_stage3(const slerp8_state *st, size_t q0_step,
                                                             size_t q1_step)
{
    __m256 f0, f1, w0, w1, a[4], b[4], r[4];
    int k;
    if (st->in_range) {
        sin_poly_avx2(&f0, &st->x0, 1);
        sin_poly_avx2(&f1, &st->x1, 1);
    } else {
        sin_reduced_avx2(&f0, &st->x0, 1);
        sin_reduced_avx2(&f1, &st->x1, 1);
    }
    w0 = _mm256_mul_ps(f0, st->inv_s);
    w1 = _mm256_xor_ps(_mm256_mul_ps(f1, st->inv_s), _mm256_and_ps(_mm256_set1_ps(-0.0f), st->c));
    for (k = 0; k < 4; k++) {
        a[k] = quat2_load(st->blk.q0, q0_step, k);
        b[k] = quat2_load(st->blk.q1, q1_step, k);
    }
    combine8_aos(r, a, b, w0, w1);
    for (k = 0; k < 4; k++) _mm256_storeu_ps(st->blk.out + 8 * k, r[k]);
}

SKS_TARGET_AVX2 static void slerp_fast_avx2_kernel(float *out, const float *q0, size_t q0_step,
                                                   const float *q1, size_t q1_step, const float *t,
                                                   size_t t_step, size_t n)
{
    const size_t nblk = n / 8;
    size_t k;
    for (k = 0; k + SLERP_LOCKSTEP <= nblk; k += SLERP_LOCKSTEP) {
        slerp8_state st[SLERP_LOCKSTEP];
        int j;
        for (j = 0; j < SLERP_LOCKSTEP; j++)
            slerp8_stage1(&st[j], interp8_block_at(out, q0, q0_step, q1, q1_step, t, t_step, 8 * (k + (size_t)j)),
                          q0_step, q1_step, t_step);
        for (j = 0; j < SLERP_LOCKSTEP; j++) slerp8_stage2(&st[j]);
        for (j = 0; j < SLERP_LOCKSTEP; j++) slerp8_stage3(&st[j], q0_step, q1_step);
    }
    for (; k < nblk; k++) {
        slerp8_state st;
        slerp8_stage1(&st, interp8_block_at(out, q0, q0_step, q1, q1_step, t, t_step, 8 * k), q0_step, q1_step, t_step);
        slerp8_stage2(&st);
        slerp8_stage3(&st, q0_step, q1_step);
    }
    slerp_fast_scalar(out + 32 * nblk, q0 + 32 * q0_step * nblk, q0_step, q1 + 32 * q1_step * nblk,
                      q1_step, t + 8 * t_step * nblk, t_step, n - 8 * nblk);
}

/* Pipeline state of one nlerp block between its two stages. */
typedef struct nlerp8_state {
    interp8_block blk;
    __m256 v[4], n2;   /* v = (1 - t) q0 + (+-t) q1 (AoS), n2 = |v|^2 (compact) */
    int ok;            /* every n2 in the fast normalisation range */
} nlerp8_state;

/* Stage 1: loads, the signed weights, v and |v|^2. */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void nlerp8_stage1(nlerp8_state *st, interp8_block blk,
                                                             size_t q0_step, size_t q1_step,
                                                             size_t t_step)
{
    __m256 a[4], b[4], t, w1;
    int k;
    for (k = 0; k < 4; k++) {
        a[k] = quat2_load(blk.q0, q0_step, k);
        b[k] = quat2_load(blk.q1, q1_step, k);
    }
    st->blk = blk;
    t = lanes8_load_or_splat(blk.t, t_step);
    w1 = _mm256_xor_ps(t, _mm256_and_ps(_mm256_set1_ps(-0.0f), dot8_aos(a, b)));
    combine8_aos(st->v, a, b, _mm256_sub_ps(_mm256_set1_ps(1.0f), t), w1);
    st->n2 = dot8_aos(st->v, st->v);
    st->ok = _mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(st->n2, _mm256_set1_ps(SKS_NORM2_MIN), _CMP_GE_OQ),
                                              _mm256_cmp_ps(st->n2, _mm256_set1_ps(SKS_NORM2_MAX), _CMP_LE_OQ))) == 0xFF;
}

/* Stage 2: out = v (1 / sqrt(|v|^2)); a block with an out-of-range |v|^2 is redone in scalar
 * (nothing of it was stored yet). */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void nlerp8_stage2(const nlerp8_state *st, size_t q0_step,
                                                             size_t q1_step, size_t t_step)
{
    __m256 e[4];
    int k;
    if (!st->ok) {
        nlerp_scalar(st->blk.out, st->blk.q0, q0_step, st->blk.q1, q1_step, st->blk.t, t_step, 8);
        return;
    }
    expand8_aos(e, _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(st->n2)));
    for (k = 0; k < 4; k++) _mm256_storeu_ps(st->blk.out + 8 * k, _mm256_mul_ps(st->v[k], e[k]));
}

SKS_TARGET_AVX2 static void nlerp_avx2_kernel(float *out, const float *q0, size_t q0_step,
                                              const float *q1, size_t q1_step, const float *t,
                                              size_t t_step, size_t n)
{
    const size_t nblk = n / 8;
    size_t k;
    nlerp8_state s1, s2;   /* the blocks in stage 1 and 2 */
    for (k = 0; k < nblk + 1; k++) {
        /* stage 2 of block k - 1, stage 1 of block k */
        if (k >= 1) nlerp8_stage2(&s2, q0_step, q1_step, t_step);
        if (k < nblk) {
            nlerp8_stage1(&s1, interp8_block_at(out, q0, q0_step, q1, q1_step, t, t_step, 8 * k),
                          q0_step, q1_step, t_step);
            s2 = s1;
        }
    }
    nlerp_scalar(out + 32 * nblk, q0 + 32 * q0_step * nblk, q0_step, q1 + 32 * q1_step * nblk,
                 q1_step, t + 8 * t_step * nblk, t_step, n - 8 * nblk);
}

/* Groups of eight selected joints, nb groups at a time. Each joint is one 256-bit row
 * [q | t, s]: translation and scale are interpolated on the rows as they are (a + t (b - a); the
 * quaternion half of that result is discarded), only the quaternion halves are transposed to SoA
 * (one permute per row pair and an in-lane 4x4 transpose: 12 shuffles per side instead of an 8x8
 * transpose's 24), and the interpolated quaternions are merged back into the rows' low halves.
 * Nothing is stored before every group is computed, so an out-of-range nlerp lane can redo the
 * groups from the inputs in scalar (also in place). */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void blend_groups_avx2(float *o, const float *a,
                                                                const float *b, float t,
                                                                const int32_t *index, size_t k0,
                                                                int nb, int method)
{
    const __m256 tv = _mm256_set1_ps(t);
    size_t j[AVX2_BLOCKS][8];
    __m256 lerped[AVX2_BLOCKS][8], tvs[AVX2_BLOCKS];
    sks_quat8 sa[AVX2_BLOCKS], sb[AVX2_BLOCKS], r[AVX2_BLOCKS];
    int g, l, ok = 1;
    for (g = 0; g < nb; g++) {
        __m256 ra[8], rb[8];
        for (l = 0; l < 8; l++) {
            j[g][l] = 8 * joint_at(index, k0 + 8 * (size_t)g + (size_t)l);
            ra[l] = _mm256_loadu_ps(a + j[g][l]);
            rb[l] = _mm256_loadu_ps(b + j[g][l]);
            lerped[g][l] = _mm256_add_ps(ra[l], _mm256_mul_ps(tv, _mm256_sub_ps(rb[l], ra[l])));
        }
        /* [q_l | q_l+4] pairs, then x, y, z, w of joints 0..7 in natural lane order */
        sa[g].x = _mm256_permute2f128_ps(ra[0], ra[4], 0x20);
        sa[g].y = _mm256_permute2f128_ps(ra[1], ra[5], 0x20);
        sa[g].z = _mm256_permute2f128_ps(ra[2], ra[6], 0x20);
        sa[g].w = _mm256_permute2f128_ps(ra[3], ra[7], 0x20);
        sb[g].x = _mm256_permute2f128_ps(rb[0], rb[4], 0x20);
        sb[g].y = _mm256_permute2f128_ps(rb[1], rb[5], 0x20);
        sb[g].z = _mm256_permute2f128_ps(rb[2], rb[6], 0x20);
        sb[g].w = _mm256_permute2f128_ps(rb[3], rb[7], 0x20);
        sks_transpose4_in_lanes(&sa[g].x, &sa[g].y, &sa[g].z, &sa[g].w);
        sks_transpose4_in_lanes(&sb[g].x, &sb[g].y, &sb[g].z, &sb[g].w);
        tvs[g] = tv;
    }
    if (method == SKS_INTERP_NLERP) {
        ok = nlerp_avx2(r, sa, sb, tvs, nb);
    } else {
        slerp_fast_avx2(r, sa, sb, tvs, nb);
    }
    if (!ok) {
        for (g = 0; g < nb; g++)
            for (l = 0; l < 8; l++) blend_joint_one_scalar(o + j[g][l], a + j[g][l], b + j[g][l], t, method);
        return;
    }
    for (g = 0; g < nb; g++) {
        __m256 q[4];
        q[0] = r[g].x; q[1] = r[g].y; q[2] = r[g].z; q[3] = r[g].w;
        sks_transpose4_in_lanes(&q[0], &q[1], &q[2], &q[3]);   /* q[l] = [q_l | q_l+4] */
        for (l = 0; l < 4; l++) {
            _mm256_storeu_ps(o + j[g][l], _mm256_permute2f128_ps(q[l], lerped[g][l], 0x30));
            _mm256_storeu_ps(o + j[g][l + 4], _mm256_permute2f128_ps(q[l], lerped[g][l + 4], 0x31));
        }
    }
}

SKS_TARGET_AVX2 static void blend_run_avx2(float *o, const float *a, const float *b, float t,
                                           const int32_t *index, size_t nsel, int method)
{
    size_t k = 0;
    if (method == SKS_INTERP_EXACT) {
        blend_run_scalar(o, a, b, t, index, nsel, method);
        return;
    }
    for (; k + 8 * AVX2_BLOCKS <= nsel; k += 8 * AVX2_BLOCKS)
        blend_groups_avx2(o, a, b, t, index, k, AVX2_BLOCKS, method);
    for (; k + 8 <= nsel; k += 8) blend_groups_avx2(o, a, b, t, index, k, 1, method);
    for (; k < nsel; k++) {
        const size_t j = 8 * joint_at(index, k);
        blend_joint_one_scalar(o + j, a + j, b + j, t, method);
    }
}

SKS_TARGET_AVX2 static void blend_joints_avx2(float *out, const float *joints, size_t joints_step,
                                              const float *blend, size_t blend_step,
                                              const float *t, size_t t_step, size_t npose,
                                              size_t njoints, const int32_t *index, size_t nindex,
                                              int method)
{
    blend_joints_driver(blend_run_avx2, out, joints, joints_step, blend, blend_step, t, t_step,
                        npose, njoints, index, nindex, method);
}

/* blend_layers, eight joints at a time: the layers' quaternion halves in SoA (the running
 * hemisphere test and the weighted sum per lane), translation and scale accumulated on the
 * 256-bit rows as they are (their quaternion half is discarded), then the normalised quaternions
 * merged back into the rows. The same operations in the same order as blend_layers_one_scalar;
 * a block with an out-of-range |q|^2 is redone in scalar (nothing is stored before). */
SKS_TARGET_AVX2 static void blend_layers_avx2(float *out, const float *layers, size_t npose,
                                              size_t nlayers, size_t njoints, const float *weights,
                                              size_t layer_stride, size_t joint_step)
{
    const size_t pose = 8 * njoints;
    const __m256 sign_bit = _mm256_set1_ps(-0.0f), zero = _mm256_setzero_ps();
    size_t p, j, l;
    int k, ok;
    for (p = 0; p < npose; p++) {
        const float *x = layers + p * nlayers * pose;
        float *o = out + p * pose;
        for (j = 0; j + 8 <= njoints; j += 8) {
            sks_quat8 acc;
            __m256 rows[8], total = zero, n2, len, inv_total, q[4];
            acc.x = acc.y = acc.z = acc.w = zero;
            for (k = 0; k < 8; k++) rows[k] = zero;
            for (l = 0; l < nlayers; l++) {
                const float *xl = x + l * pose + 8 * j;
                const float *wl = weights + l * layer_stride + j * joint_step;
                const __m256 wv = joint_step ? _mm256_loadu_ps(wl) : _mm256_broadcast_ss(wl);
                __m256 r[8];
                sks_quat8 y;
                __m256 wq;
                for (k = 0; k < 8; k++) {
                    r[k] = _mm256_loadu_ps(xl + 8 * k);
                    rows[k] = _mm256_add_ps(rows[k], _mm256_mul_ps(_mm256_broadcast_ss(wl + (size_t)k * joint_step), r[k]));
                }
                y.x = _mm256_permute2f128_ps(r[0], r[4], 0x20);
                y.y = _mm256_permute2f128_ps(r[1], r[5], 0x20);
                y.z = _mm256_permute2f128_ps(r[2], r[6], 0x20);
                y.w = _mm256_permute2f128_ps(r[3], r[7], 0x20);
                sks_transpose4_in_lanes(&y.x, &y.y, &y.z, &y.w);
                wq = _mm256_xor_ps(wv, _mm256_and_ps(_mm256_cmp_ps(sks_quat8_dot(acc, y), zero, _CMP_LT_OQ), sign_bit));
                acc.x = _mm256_add_ps(acc.x, _mm256_mul_ps(wq, y.x));
                acc.y = _mm256_add_ps(acc.y, _mm256_mul_ps(wq, y.y));
                acc.z = _mm256_add_ps(acc.z, _mm256_mul_ps(wq, y.z));
                acc.w = _mm256_add_ps(acc.w, _mm256_mul_ps(wq, y.w));
                total = _mm256_add_ps(total, wv);
            }
            n2 = sks_quat8_dot(acc, acc);
            ok = _mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(n2, _mm256_set1_ps(SKS_NORM2_MIN), _CMP_GE_OQ),
                                                  _mm256_cmp_ps(n2, _mm256_set1_ps(SKS_NORM2_MAX), _CMP_LE_OQ))) == 0xFF;
            if (!ok) {
                for (k = 0; k < 8; k++)
                    blend_layers_one_scalar(o + 8 * (j + (size_t)k), x + 8 * (j + (size_t)k), pose, nlayers,
                                            weights + (j + (size_t)k) * joint_step, layer_stride);
                continue;
            }
            len = _mm256_sqrt_ps(n2);
            inv_total = _mm256_div_ps(_mm256_set1_ps(1.0f), total);
            q[0] = _mm256_div_ps(acc.x, len);
            q[1] = _mm256_div_ps(acc.y, len);
            q[2] = _mm256_div_ps(acc.z, len);
            q[3] = _mm256_div_ps(acc.w, len);
            sks_transpose4_in_lanes(&q[0], &q[1], &q[2], &q[3]);   /* q[k] = [q_k | q_k+4] */
            for (k = 0; k < 8; k++) {
                const __m256 scale = _mm256_permutevar8x32_ps(inv_total, _mm256_set1_epi32(k));
                rows[k] = _mm256_mul_ps(rows[k], scale);
            }
            for (k = 0; k < 4; k++) {
                _mm256_storeu_ps(o + 8 * (j + (size_t)k), _mm256_permute2f128_ps(q[k], rows[k], 0x30));
                _mm256_storeu_ps(o + 8 * (j + (size_t)k + 4), _mm256_permute2f128_ps(q[k], rows[k + 4], 0x31));
            }
        }
        for (; j < njoints; j++) {
            blend_layers_one_sse41(o + 8 * j, x + 8 * j, pose, nlayers, weights + j * joint_step, layer_stride);
        }
    }
}

#endif /* SKS_HAVE_X86_SIMD */

/* ------------------------------------------------------------------------------------------
 * The dispatch table, indexed by enum sks_isa
 * ------------------------------------------------------------------------------------------ */

const sks_blend_kernels sks_blend_variants[SKS_ISA_COUNT] = {
    {slerp_fast_scalar, slerp_exact_scalar, nlerp_scalar, blend_joints_scalar, blend_layers_scalar},
    /* slerp "exact" uses libm's scalar sin/atan2 in double: every row runs the scalar code. */
    {SKS_SIMD_OR_SCALAR(slerp_fast_sse41_kernel, slerp_fast_scalar), slerp_exact_scalar,
     SKS_SIMD_OR_SCALAR(nlerp_sse41_kernel, nlerp_scalar),
     SKS_SIMD_OR_SCALAR(blend_joints_sse41, blend_joints_scalar),
     SKS_SIMD_OR_SCALAR(blend_layers_sse41, blend_layers_scalar)},
    {SKS_SIMD_OR_SCALAR(slerp_fast_avx2_kernel, slerp_fast_scalar), slerp_exact_scalar,
     SKS_SIMD_OR_SCALAR(nlerp_avx2_kernel, nlerp_scalar),
     SKS_SIMD_OR_SCALAR(blend_joints_avx2, blend_joints_scalar),
     SKS_SIMD_OR_SCALAR(blend_layers_avx2, blend_layers_scalar)},
};
