/*
 * vec_neon.h -- the vector vocabulary on aarch64 Advanced SIMD (NEON): vf = float32x4_t, 4
 * lanes, one row per vector. NEON is part of ARMv8-A, so no run-time probe is needed. Only IEEE
 * operations are used (vdivq_f32, vsqrtq_f32; never vfmaq or the reciprocal estimates), and the
 * x86 semantics the kernels rely on are reproduced exactly (min/max pick b on NaN, a masked-off
 * lane is +0.0), so results are bit-identical to every other target on finite inputs. See
 * vec.h for the meaning of every operation.
 */
#ifndef SKS_VEC_IMPL_H
#define SKS_VEC_IMPL_H

#include <arm_neon.h>

#define SKS_W 4
#define SKS_ROWS 1
#define SKS_VEC_ALIGN 16

typedef float32x4_t vf;
typedef uint32x4_t vm;
typedef int32x4_t vi;
typedef struct vd4 {
    float64x2_t lo, hi;
} vd4;

#define SKS_V static SKS_ALWAYS_INLINE

#define SKS_F2U(v) vreinterpretq_u32_f32(v)
#define SKS_U2F(v) vreinterpretq_f32_u32(v)

/* ---- memory ---- */
SKS_V vf vf_load(const float *p) { return vld1q_f32(p); }
SKS_V vf vf_load_aligned(const float *p) { return vld1q_f32(p); }
SKS_V void vf_store(float *p, vf v) { vst1q_f32(p, v); }
SKS_V void vf_store_aligned(float *p, vf v) { vst1q_f32(p, v); }
SKS_V vf vf_load_n(const float *p, size_t n)
{
    float tmp[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    memcpy(tmp, p, (n < 4 ? n : 4) * sizeof(float));
    return vld1q_f32(tmp);
}
SKS_V void vf_store_n(float *p, vf v, size_t n)
{
    float tmp[4];
    vst1q_f32(tmp, v);
    memcpy(p, tmp, (n < 4 ? n : 4) * sizeof(float));
}

/* ---- construction ---- */
SKS_V vf vf_set1(float x) { return vdupq_n_f32(x); }
SKS_V vf vf_zero(void) { return vdupq_n_f32(0.0f); }
SKS_V float vf_first(vf v) { return vgetq_lane_f32(v, 0); }

/* ---- arithmetic ---- */
SKS_V vf vf_add(vf a, vf b) { return vaddq_f32(a, b); }
SKS_V vf vf_sub(vf a, vf b) { return vsubq_f32(a, b); }
SKS_V vf vf_mul(vf a, vf b) { return vmulq_f32(a, b); }
SKS_V vf vf_div(vf a, vf b) { return vdivq_f32(a, b); }
SKS_V vf vf_sqrt(vf a) { return vsqrtq_f32(a); }
/* x86 semantics: a < b ? a : b (b when either is NaN), not vminq_f32's NaN propagation. */
SKS_V vf vf_min(vf a, vf b) { return vbslq_f32(vcltq_f32(a, b), a, b); }
SKS_V vf vf_max(vf a, vf b) { return vbslq_f32(vcgtq_f32(a, b), a, b); }

/* ---- bits ---- */
SKS_V vf vf_and(vf a, vf b) { return SKS_U2F(vandq_u32(SKS_F2U(a), SKS_F2U(b))); }
SKS_V vf vf_or(vf a, vf b) { return SKS_U2F(vorrq_u32(SKS_F2U(a), SKS_F2U(b))); }
SKS_V vf vf_xor(vf a, vf b) { return SKS_U2F(veorq_u32(SKS_F2U(a), SKS_F2U(b))); }
SKS_V vf vf_andnot(vf a, vf b) { return SKS_U2F(vbicq_u32(SKS_F2U(b), SKS_F2U(a))); }
SKS_V vf vf_neg(vf a) { return vnegq_f32(a); }
SKS_V vf vf_abs(vf a) { return vabsq_f32(a); }

/* ---- comparisons and masks ---- */
SKS_V vm vf_lt(vf a, vf b) { return vcltq_f32(a, b); }
SKS_V vm vf_le(vf a, vf b) { return vcleq_f32(a, b); }
SKS_V vm vf_gt(vf a, vf b) { return vcgtq_f32(a, b); }
SKS_V vm vf_ge(vf a, vf b) { return vcgeq_f32(a, b); }
SKS_V vm vf_eq(vf a, vf b) { return vceqq_f32(a, b); }
SKS_V vm vf_neq(vf a, vf b) { return vmvnq_u32(vceqq_f32(a, b)); }
SKS_V vm vf_unordered(vf a, vf b) { return vmvnq_u32(vandq_u32(vceqq_f32(a, a), vceqq_f32(b, b))); }
SKS_V vm vm_and(vm a, vm b) { return vandq_u32(a, b); }
SKS_V vm vm_or(vm a, vm b) { return vorrq_u32(a, b); }
SKS_V vm vm_andnot(vm a, vm b) { return vbicq_u32(b, a); }
SKS_V vm vm_not(vm a) { return vmvnq_u32(a); }
SKS_V unsigned vm_bits(vm m)
{
    static const int32_t shifts[4] = {0, 1, 2, 3};
    return (unsigned)vaddvq_u32(vshlq_u32(vshrq_n_u32(m, 31), vld1q_s32(shifts)));
}
SKS_V int vm_any(vm m) { return vmaxvq_u32(m) != 0; }
SKS_V int vm_all(vm m) { return vminvq_u32(m) != 0; }
SKS_V vm vm_first_n(size_t n)
{
    static const uint32_t idx[4] = {0, 1, 2, 3};
    return vcltq_u32(vld1q_u32(idx), vdupq_n_u32((uint32_t)(n < 4 ? n : 4)));
}
SKS_V vf vf_select(vm m, vf a, vf b) { return vbslq_f32(m, a, b); }
SKS_V vf vf_if(vm m, vf a) { return SKS_U2F(vandq_u32(m, SKS_F2U(a))); }
SKS_V vf vf_ifnot(vm m, vf a) { return SKS_U2F(vbicq_u32(SKS_F2U(a), m)); }

/* ---- rows: one group of 4 lanes ---- */
SKS_V vf vf_load_rows(const float *p, ptrdiff_t stride) { (void)stride; return vld1q_f32(p); }
SKS_V void vf_store_rows(float *p, ptrdiff_t stride, vf v) { (void)stride; vst1q_f32(p, v); }
SKS_V vf vf_load_rows_n(const float *p, size_t n) { (void)n; return vld1q_f32(p); }
SKS_V void vf_store_rows_n(float *p, vf v, size_t n) { (void)n; vst1q_f32(p, v); }
SKS_V vf vf_broadcast_row(const float *p) { return vld1q_f32(p); }
#define vf_shuffle_in_rows(v, i0, i1, i2, i3) __builtin_shufflevector((v), (v), i0, i1, i2, i3)
#define vf_splat_in_rows(v, i) vdupq_laneq_f32((v), (i))
SKS_V vf vf_keep_lane3(vf v)
{
    static const uint32_t keep[4] = {0, 0, 0, 0xFFFFFFFFu};
    return SKS_U2F(vandq_u32(SKS_F2U(v), vld1q_u32(keep)));
}
SKS_V vf vf_clear_lane3(vf v)
{
    static const uint32_t keep[4] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0};
    return SKS_U2F(vandq_u32(SKS_F2U(v), vld1q_u32(keep)));
}
SKS_V void vf_transpose4_in_rows(vf *a, vf *b, vf *c, vf *d)
{
    const float32x4_t t0 = vtrn1q_f32(*a, *b), t1 = vtrn2q_f32(*a, *b);
    const float32x4_t t2 = vtrn1q_f32(*c, *d), t3 = vtrn2q_f32(*c, *d);
    *a = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
    *b = vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
    *c = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t0), vreinterpretq_f64_f32(t2)));
    *d = vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(t1), vreinterpretq_f64_f32(t3)));
}

/* ---- 32-bit integer lanes ---- */
SKS_V vi vi_load(const int32_t *p) { return vld1q_s32(p); }
SKS_V void vi_store(int32_t *p, vi v) { vst1q_s32(p, v); }
SKS_V vi vi_set1(int32_t x) { return vdupq_n_s32(x); }
SKS_V vi vi_add(vi a, vi b) { return vaddq_s32(a, b); }
SKS_V vi vi_sub(vi a, vi b) { return vsubq_s32(a, b); }
SKS_V vi vi_and(vi a, vi b) { return vandq_s32(a, b); }
SKS_V vi vi_or(vi a, vi b) { return vorrq_s32(a, b); }
#define vi_shl(v, n) vshlq_n_s32((v), (n))
#define vi_shr(v, n) vreinterpretq_s32_u32(vshrq_n_u32(vreinterpretq_u32_s32(v), (n)))
SKS_V vm vi_eq(vi a, vi b) { return vceqq_s32(a, b); }
SKS_V vm vi_gt(vi a, vi b) { return vcgtq_s32(a, b); }
SKS_V vf vf_from_vi(vi v) { return vcvtq_f32_s32(v); }
/* In range like x86's cvttps2dq; out of range saturates (x86 gives INT32_MIN): callers keep
 * values in range. */
SKS_V vi vi_from_vf_trunc(vf v) { return vcvtq_s32_f32(v); }
SKS_V vf vf_bits_from_vi(vi v) { return vreinterpretq_f32_s32(v); }
SKS_V vi vi_bits_from_vf(vf v) { return vreinterpretq_s32_f32(v); }

/* ---- item order (SoA blocks): identity with one row per vector ---- */
SKS_V vf vf_load_rows_count(const float *p, ptrdiff_t stride, size_t count)
{
    (void)stride;
    return count ? vld1q_f32(p) : vdupq_n_f32(0.0f);
}
SKS_V void vf_store_rows_count(float *p, ptrdiff_t stride, vf v, size_t count)
{
    (void)stride;
    if (count) vst1q_f32(p, v);
}
SKS_V vf vf_load_rows_xyz(const float *p, ptrdiff_t stride, size_t count)
{
    (void)stride;
    if (!count) return vdupq_n_f32(0.0f);
    return vsetq_lane_f32(p[2], vcombine_f32(vld1_f32(p), vdup_n_f32(0.0f)), 2);
}
SKS_V void vf_store_rows_xyz(float *p, ptrdiff_t stride, vf v, size_t count)
{
    (void)stride;
    if (!count) return;
    vst1_f32(p, vget_low_f32(v));
    vst1q_lane_f32(p + 2, v, 2);
}
/* Six floats: two 4-float loads (the second at p + 2, shifted down one lane) and two stores
 * of 4 and 2 floats. */
SKS_V void vf_load_rows_xyz2(const float *p, vf *a, vf *b)
{
    *a = vsetq_lane_f32(0.0f, vld1q_f32(p), 3);
    *b = vextq_f32(vld1q_f32(p + 2), vdupq_n_f32(0.0f), 1);
}
SKS_V void vf_store_rows_xyz2(float *p, vf a, vf b)
{
    vst1q_f32(p, vcopyq_laneq_f32(a, 3, b, 0));   /* (x0 y0 z0 x1) */
    vst1_f32(p + 4, vget_low_f32(vextq_f32(b, b, 1)));
}
SKS_V vm vm_first_items(size_t n) { return vm_first_n(n); }
SKS_V vf vf_load_items(const float *p) { return vld1q_f32(p); }
SKS_V vf vf_load_items_n(const float *p, size_t n) { return vf_load_n(p, n); }
SKS_V void vf_store_items(float *p, vf v) { vst1q_f32(p, v); }
SKS_V void vf_store_items_n(float *p, vf v, size_t n) { vf_store_n(p, v, n); }

/* ---- a row of four doubles ---- */
SKS_V vd4 vd4_from_floats(const float *p)
{
    const float32x4_t x = vld1q_f32(p);
    vd4 r;
    r.lo = vcvt_f64_f32(vget_low_f32(x));
    r.hi = vcvt_high_f64_f32(x);
    return r;
}
SKS_V vd4 vd4_load(const double *p)
{
    vd4 r;
    r.lo = vld1q_f64(p);
    r.hi = vld1q_f64(p + 2);
    return r;
}
SKS_V void vd4_store(double *p, vd4 v)
{
    vst1q_f64(p, v.lo);
    vst1q_f64(p + 2, v.hi);
}
SKS_V void vd4_store_floats(float *p, vd4 v)
{
    vst1q_f32(p, vcombine_f32(vcvt_f32_f64(v.lo), vcvt_f32_f64(v.hi)));
}
SKS_V vd4 vd4_broadcast(const double *p)
{
    vd4 r;
    r.lo = r.hi = vld1q_dup_f64(p);
    return r;
}
SKS_V vd4 vd4_lane3_of(const double *p)
{
    vd4 r;
    r.lo = vdupq_n_f64(0.0);
    r.hi = vld1q_lane_f64(p, vdupq_n_f64(0.0), 1);
    return r;
}
SKS_V vd4 vd4_set1(double x)
{
    vd4 r;
    r.lo = r.hi = vdupq_n_f64(x);
    return r;
}
SKS_V vd4 vd4_lane3(double x)
{
    vd4 r;
    r.lo = vdupq_n_f64(0.0);
    r.hi = vsetq_lane_f64(x, vdupq_n_f64(0.0), 1);
    return r;
}
SKS_V vd4 vd4_add(vd4 a, vd4 b)
{
    vd4 r;
    r.lo = vaddq_f64(a.lo, b.lo);
    r.hi = vaddq_f64(a.hi, b.hi);
    return r;
}
SKS_V vd4 vd4_mul(vd4 a, vd4 b)
{
    vd4 r;
    r.lo = vmulq_f64(a.lo, b.lo);
    r.hi = vmulq_f64(a.hi, b.hi);
    return r;
}

/* ---- bytes and float64 sums ---- */
SKS_V vi vi_load_u8_n(const unsigned char *p, size_t n)
{
    uint8_t tmp[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    memcpy(tmp, p, n < 4 ? n : 4);
    return vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(vmovl_u8(vld1_u8(tmp)))));
}
SKS_V vi vi_load_u8(const unsigned char *p) { return vi_load_u8_n(p, 4); }

/* Negated float64 sum: as the scalar target (one double, lanes subtracted in lane order). */
typedef double vnsum;
SKS_V vnsum vnsum_zero(void) { return 0.0; }
SKS_V vnsum vnsum_sub(vnsum s, vf v)
{
    s = s - (double)vgetq_lane_f32(v, 0);
    s = s - (double)vgetq_lane_f32(v, 1);
    s = s - (double)vgetq_lane_f32(v, 2);
    return s - (double)vgetq_lane_f32(v, 3);
}
SKS_V double vnsum_value(vnsum s) { return s; }
/* ---- rounding, per-item sums, rows of 8 floats ---- */
SKS_V vf vf_round(vf a) { return vrndnq_f32(a); }
/* (a0 + a2, a1 + a3, b0 + b2, b1 + b3) from the 64-bit halves, then adjacent pairs: the pairwise
 * order of the other targets (vpaddq_f32 adds adjacent lanes). */
SKS_V vf vf_hsum4_in_rows(vf a, vf b, vf c, vf d)
{
    const float32x4_t ab = vaddq_f32(vcombine_f32(vget_low_f32(a), vget_low_f32(b)),
                                     vcombine_f32(vget_high_f32(a), vget_high_f32(b)));
    const float32x4_t cd = vaddq_f32(vcombine_f32(vget_low_f32(c), vget_low_f32(d)),
                                     vcombine_f32(vget_high_f32(c), vget_high_f32(d)));
    return vpaddq_f32(ab, cd);
}
SKS_V void vf_load_rows2_count(const float *p, ptrdiff_t stride, vf *a, vf *b, size_t count)
{
    (void)stride;
    *a = count ? vf_load(p) : vf_zero();
    *b = count ? vf_load(p + 4) : vf_zero();
}
SKS_V void vf_store_rows2_count(float *p, ptrdiff_t stride, vf a, vf b, size_t count)
{
    (void)stride;
    if (count) {
        vf_store(p, a);
        vf_store(p + 4, b);
    }
}

/* ---- rows of one item, row transposes ---- */
SKS_V vf vf_set1_rows(const float *p, ptrdiff_t stride)
{
    (void)stride;
    return vld1q_dup_f32(p);
}
SKS_V void vf_transpose_rows(vf *v) { (void)v; }
/* ---- two-source row shuffles and blends, float64 rows ---- */
#define vf_shuffle2_in_rows(a, b, i0, i1, i2, i3) \
    __builtin_shufflevector((a), (b), i0, i1, (i2) + 4, (i3) + 4)
#define vf_blend_in_rows(a, b, mask)                                                          \
    __builtin_shufflevector((a), (b), ((mask) & 1) ? 4 : 0, ((mask) & 2) ? 5 : 1,              \
                            ((mask) & 4) ? 6 : 2, ((mask) & 8) ? 7 : 3)
#define SKS_VD4_HALVES(name, op)                                                              \
    SKS_V vd4 name(vd4 a, vd4 b)                                                              \
    {                                                                                         \
        vd4 r;                                                                                \
        r.lo = op(a.lo, b.lo);                                                                \
        r.hi = op(a.hi, b.hi);                                                                \
        return r;                                                                             \
    }
SKS_VD4_HALVES(vd4_sub, vsubq_f64)
SKS_VD4_HALVES(vd4_div, vdivq_f64)
#undef SKS_VD4_HALVES
SKS_V vd4 vd4_select_gt(vd4 a, vd4 b, vd4 x, vd4 y)
{
    vd4 r;
    r.lo = vbslq_f64(vcgtq_f64(a.lo, b.lo), x.lo, y.lo);
    r.hi = vbslq_f64(vcgtq_f64(a.hi, b.hi), x.hi, y.hi);
    return r;
}
SKS_V void vd4_load_floats_transposed(vd4 r[4], const float *p, ptrdiff_t stride)
{
    vf a = vld1q_f32(p), b = vld1q_f32(p + stride), c = vld1q_f32(p + 2 * stride);
    vf d = vld1q_f32(p + 3 * stride);
    vf_transpose4_in_rows(&a, &b, &c, &d);
    r[0].lo = vcvt_f64_f32(vget_low_f32(a));
    r[0].hi = vcvt_high_f64_f32(a);
    r[1].lo = vcvt_f64_f32(vget_low_f32(b));
    r[1].hi = vcvt_high_f64_f32(b);
    r[2].lo = vcvt_f64_f32(vget_low_f32(c));
    r[2].hi = vcvt_high_f64_f32(c);
    r[3].lo = vcvt_f64_f32(vget_low_f32(d));
    r[3].hi = vcvt_high_f64_f32(d);
}
SKS_V void vd4_store_floats_transposed(float *p, ptrdiff_t stride, const vd4 r[4])
{
    vf a = vcombine_f32(vcvt_f32_f64(r[0].lo), vcvt_f32_f64(r[0].hi));
    vf b = vcombine_f32(vcvt_f32_f64(r[1].lo), vcvt_f32_f64(r[1].hi));
    vf c = vcombine_f32(vcvt_f32_f64(r[2].lo), vcvt_f32_f64(r[2].hi));
    vf d = vcombine_f32(vcvt_f32_f64(r[3].lo), vcvt_f32_f64(r[3].hi));
    vf_transpose4_in_rows(&a, &b, &c, &d);
    vst1q_f32(p, a);
    vst1q_f32(p + stride, b);
    vst1q_f32(p + 2 * stride, c);
    vst1q_f32(p + 3 * stride, d);
}

#endif /* SKS_VEC_IMPL_H */
