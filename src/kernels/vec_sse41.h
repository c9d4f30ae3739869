/*
 * vec_sse41.h -- the vector vocabulary on x86-64 SSE4.1: vf = __m128, 4 lanes, one row per
 * vector. Included through vec.h in translation units compiled with -msse4.1; see vec.h for
 * the meaning of every operation (this file only implements them).
 */
#ifndef SKS_VEC_IMPL_H
#define SKS_VEC_IMPL_H

#include <immintrin.h>

#define SKS_W 4
#define SKS_ROWS 1
#define SKS_VEC_ALIGN 16

typedef __m128 vf;
typedef __m128 vm;
typedef __m128i vi;
typedef struct vd4 {
    __m128d lo, hi;
} vd4;

#define SKS_V static SKS_ALWAYS_INLINE

/* ---- memory ---- */
SKS_V vf vf_load(const float *p) { return _mm_loadu_ps(p); }
SKS_V vf vf_load_aligned(const float *p) { return _mm_load_ps(p); }
SKS_V void vf_store(float *p, vf v) { _mm_storeu_ps(p, v); }
SKS_V void vf_store_aligned(float *p, vf v) { _mm_store_ps(p, v); }
SKS_V vf vf_load_n(const float *p, size_t n)
{
    switch (n) {
    case 0: return _mm_setzero_ps();
    case 1: return _mm_load_ss(p);
    case 2: return _mm_castsi128_ps(_mm_loadu_si64(p));
    case 3: return _mm_movelh_ps(_mm_castsi128_ps(_mm_loadu_si64(p)),
                                 _mm_load_ss(p + 2));
    default: return _mm_loadu_ps(p);
    }
}
SKS_V void vf_store_n(float *p, vf v, size_t n)
{
    switch (n) {
    case 0: return;
    case 1: _mm_store_ss(p, v); return;
    case 2: _mm_storeu_si64(p, _mm_castps_si128(v)); return;
    case 3:
        _mm_storeu_si64(p, _mm_castps_si128(v));
        _mm_store_ss(p + 2, _mm_movehl_ps(v, v));
        return;
    default: _mm_storeu_ps(p, v); return;
    }
}

/* ---- construction ---- */
SKS_V vf vf_set1(float x) { return _mm_set1_ps(x); }
SKS_V vf vf_zero(void) { return _mm_setzero_ps(); }
SKS_V float vf_first(vf v) { return _mm_cvtss_f32(v); }

/* ---- arithmetic (IEEE, correctly rounded) ---- */
SKS_V vf vf_add(vf a, vf b) { return _mm_add_ps(a, b); }
SKS_V vf vf_sub(vf a, vf b) { return _mm_sub_ps(a, b); }
SKS_V vf vf_mul(vf a, vf b) { return _mm_mul_ps(a, b); }
SKS_V vf vf_div(vf a, vf b) { return _mm_div_ps(a, b); }
SKS_V vf vf_sqrt(vf a) { return _mm_sqrt_ps(a); }
SKS_V vf vf_min(vf a, vf b) { return _mm_min_ps(a, b); }
SKS_V vf vf_max(vf a, vf b) { return _mm_max_ps(a, b); }

/* ---- bits ---- */
SKS_V vf vf_and(vf a, vf b) { return _mm_and_ps(a, b); }
SKS_V vf vf_or(vf a, vf b) { return _mm_or_ps(a, b); }
SKS_V vf vf_xor(vf a, vf b) { return _mm_xor_ps(a, b); }
SKS_V vf vf_andnot(vf a, vf b) { return _mm_andnot_ps(a, b); }
SKS_V vf vf_neg(vf a) { return _mm_xor_ps(a, _mm_set1_ps(-0.0f)); }
SKS_V vf vf_abs(vf a) { return _mm_andnot_ps(_mm_set1_ps(-0.0f), a); }

/* ---- comparisons and masks ---- */
SKS_V vm vf_lt(vf a, vf b) { return _mm_cmplt_ps(a, b); }
SKS_V vm vf_le(vf a, vf b) { return _mm_cmple_ps(a, b); }
SKS_V vm vf_gt(vf a, vf b) { return _mm_cmpgt_ps(a, b); }
SKS_V vm vf_ge(vf a, vf b) { return _mm_cmpge_ps(a, b); }
SKS_V vm vf_eq(vf a, vf b) { return _mm_cmpeq_ps(a, b); }
SKS_V vm vf_neq(vf a, vf b) { return _mm_cmpneq_ps(a, b); }
SKS_V vm vf_unordered(vf a, vf b) { return _mm_cmpunord_ps(a, b); }
SKS_V vm vm_and(vm a, vm b) { return _mm_and_ps(a, b); }
SKS_V vm vm_or(vm a, vm b) { return _mm_or_ps(a, b); }
SKS_V vm vm_andnot(vm a, vm b) { return _mm_andnot_ps(a, b); }
SKS_V vm vm_not(vm a) { return _mm_xor_ps(a, _mm_castsi128_ps(_mm_set1_epi32(-1))); }
SKS_V unsigned vm_bits(vm m) { return (unsigned)_mm_movemask_ps(m); }
SKS_V int vm_any(vm m) { return _mm_movemask_ps(m) != 0; }
SKS_V int vm_all(vm m) { return _mm_movemask_ps(m) == 0xF; }
SKS_V vm vm_first_n(size_t n)
{
    const __m128i idx = _mm_setr_epi32(0, 1, 2, 3);
    return _mm_castsi128_ps(_mm_cmpgt_epi32(_mm_set1_epi32((int)n), idx));
}
SKS_V vf vf_select(vm m, vf a, vf b) { return _mm_blendv_ps(b, a, m); }
SKS_V vf vf_if(vm m, vf a) { return _mm_and_ps(m, a); }
SKS_V vf vf_ifnot(vm m, vf a) { return _mm_andnot_ps(m, a); }

/* ---- rows: SKS_ROWS groups of 4 lanes (one here) ---- */
SKS_V vf vf_load_rows(const float *p, ptrdiff_t stride) { (void)stride; return _mm_loadu_ps(p); }
SKS_V void vf_store_rows(float *p, ptrdiff_t stride, vf v) { (void)stride; _mm_storeu_ps(p, v); }
SKS_V vf vf_load_rows_n(const float *p, size_t n) { (void)n; return _mm_loadu_ps(p); }
SKS_V void vf_store_rows_n(float *p, vf v, size_t n) { (void)n; _mm_storeu_ps(p, v); }
SKS_V vf vf_broadcast_row(const float *p) { return _mm_loadu_ps(p); }
#define vf_shuffle_in_rows(v, i0, i1, i2, i3) \
    _mm_shuffle_ps((v), (v), _MM_SHUFFLE((i3), (i2), (i1), (i0)))
#define vf_splat_in_rows(v, i) _mm_shuffle_ps((v), (v), _MM_SHUFFLE((i), (i), (i), (i)))
SKS_V vf vf_keep_lane3(vf v) { return _mm_blend_ps(_mm_setzero_ps(), v, 0x8); }
SKS_V vf vf_clear_lane3(vf v) { return _mm_blend_ps(v, _mm_setzero_ps(), 0x8); }
SKS_V void vf_transpose4_in_rows(vf *a, vf *b, vf *c, vf *d) { _MM_TRANSPOSE4_PS(*a, *b, *c, *d); }

/* ---- 32-bit integer lanes ---- */
SKS_V vi vi_load(const int32_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }
SKS_V void vi_store(int32_t *p, vi v) { _mm_storeu_si128((__m128i *)(void *)p, v); }
SKS_V vi vi_set1(int32_t x) { return _mm_set1_epi32(x); }
SKS_V vi vi_add(vi a, vi b) { return _mm_add_epi32(a, b); }
SKS_V vi vi_sub(vi a, vi b) { return _mm_sub_epi32(a, b); }
SKS_V vi vi_and(vi a, vi b) { return _mm_and_si128(a, b); }
SKS_V vi vi_or(vi a, vi b) { return _mm_or_si128(a, b); }
#define vi_shl(v, n) _mm_slli_epi32((v), (n))
#define vi_shr(v, n) _mm_srli_epi32((v), (n))
SKS_V vm vi_eq(vi a, vi b) { return _mm_castsi128_ps(_mm_cmpeq_epi32(a, b)); }
SKS_V vm vi_gt(vi a, vi b) { return _mm_castsi128_ps(_mm_cmpgt_epi32(a, b)); }
SKS_V vf vf_from_vi(vi v) { return _mm_cvtepi32_ps(v); }
SKS_V vi vi_from_vf_trunc(vf v) { return _mm_cvttps_epi32(v); }
SKS_V vf vf_bits_from_vi(vi v) { return _mm_castsi128_ps(v); }
SKS_V vi vi_bits_from_vf(vf v) { return _mm_castps_si128(v); }

/* ---- item order (SoA blocks): identity with one row per vector ---- */
SKS_V vf vf_load_rows_count(const float *p, ptrdiff_t stride, size_t count)
{
    (void)stride;
    return count ? _mm_loadu_ps(p) : _mm_setzero_ps();
}
SKS_V void vf_store_rows_count(float *p, ptrdiff_t stride, vf v, size_t count)
{
    (void)stride;
    if (count) _mm_storeu_ps(p, v);
}
SKS_V __m128 sks_load3_sse(const float *p)
{
    return _mm_movelh_ps(_mm_castsi128_ps(_mm_loadu_si64(p)), _mm_load_ss(p + 2));
}
SKS_V void sks_store3_sse(float *p, __m128 v)
{
    _mm_storeu_si64(p, _mm_castps_si128(v));
    _mm_store_ss(p + 2, _mm_movehl_ps(v, v));
}
SKS_V vf vf_load_rows_xyz(const float *p, ptrdiff_t stride, size_t count)
{
    (void)stride;
    return count ? sks_load3_sse(p) : _mm_setzero_ps();
}
SKS_V void vf_store_rows_xyz(float *p, ptrdiff_t stride, vf v, size_t count)
{
    (void)stride;
    if (count) sks_store3_sse(p, v);
}
/* Six floats: two 4-float loads (the second at p + 2, shifted down one lane) and two stores
 * of 4 and 2 floats. */
SKS_V void vf_load_rows_xyz2(const float *p, vf *a, vf *b)
{
    *a = _mm_blend_ps(_mm_loadu_ps(p), _mm_setzero_ps(), 0x8);
    *b = _mm_castsi128_ps(_mm_srli_si128(_mm_castps_si128(_mm_loadu_ps(p + 2)), 4));
}
SKS_V void vf_store_rows_xyz2(float *p, vf a, vf b)
{
    _mm_storeu_ps(p, _mm_insert_ps(a, b, 0x30));   /* (x0 y0 z0 x1) */
    _mm_storeu_si64(p + 4, _mm_srli_si128(_mm_castps_si128(b), 4));
}
SKS_V vm vm_first_items(size_t n) { return vm_first_n(n); }
SKS_V vf vf_load_items(const float *p) { return _mm_loadu_ps(p); }
SKS_V vf vf_load_items_n(const float *p, size_t n) { return vf_load_n(p, n); }
SKS_V void vf_store_items(float *p, vf v) { _mm_storeu_ps(p, v); }
SKS_V void vf_store_items_n(float *p, vf v, size_t n) { vf_store_n(p, v, n); }

/* ---- a row of four doubles ---- */
SKS_V vd4 vd4_from_floats(const float *p)
{
    const __m128 x = _mm_loadu_ps(p);
    vd4 r;
    r.lo = _mm_cvtps_pd(x);
    r.hi = _mm_cvtps_pd(_mm_movehl_ps(x, x));
    return r;
}
SKS_V vd4 vd4_load(const double *p)
{
    vd4 r;
    r.lo = _mm_loadu_pd(p);
    r.hi = _mm_loadu_pd(p + 2);
    return r;
}
SKS_V void vd4_store(double *p, vd4 v)
{
    _mm_storeu_pd(p, v.lo);
    _mm_storeu_pd(p + 2, v.hi);
}
SKS_V void vd4_store_floats(float *p, vd4 v)
{
    _mm_storeu_ps(p, _mm_movelh_ps(_mm_cvtpd_ps(v.lo), _mm_cvtpd_ps(v.hi)));
}
SKS_V vd4 vd4_broadcast(const double *p)
{
    vd4 r;
    r.lo = r.hi = _mm_loaddup_pd(p);
    return r;
}
SKS_V vd4 vd4_lane3_of(const double *p)
{
    vd4 r;
    r.lo = _mm_setzero_pd();
    r.hi = _mm_loadh_pd(_mm_setzero_pd(), p);
    return r;
}
SKS_V vd4 vd4_set1(double x)
{
    vd4 r;
    r.lo = r.hi = _mm_set1_pd(x);
    return r;
}
SKS_V vd4 vd4_lane3(double x)
{
    vd4 r;
    r.lo = _mm_setzero_pd();
    r.hi = _mm_set_pd(x, 0.0);
    return r;
}
SKS_V vd4 vd4_add(vd4 a, vd4 b)
{
    vd4 r;
    r.lo = _mm_add_pd(a.lo, b.lo);
    r.hi = _mm_add_pd(a.hi, b.hi);
    return r;
}
SKS_V vd4 vd4_mul(vd4 a, vd4 b)
{
    vd4 r;
    r.lo = _mm_mul_pd(a.lo, b.lo);
    r.hi = _mm_mul_pd(a.hi, b.hi);
    return r;
}

/* ---- bytes and float64 sums ---- */
SKS_V vi vi_load_u8_n(const unsigned char *p, size_t n)
{
    int32_t bytes = 0;
    memcpy(&bytes, p, n < 4 ? n : 4);
    return _mm_cvtepu8_epi32(_mm_cvtsi32_si128(bytes));
}
SKS_V vi vi_load_u8(const unsigned char *p) { return vi_load_u8_n(p, 4); }

/* Negated float64 sum: two partial sums of the lanes (lanes 0, 2 and 1, 3 of every vector),
 * negated once at the end. */
typedef struct vnsum {
    __m128d p;
} vnsum;
SKS_V vnsum vnsum_zero(void)
{
    vnsum s;
    s.p = _mm_setzero_pd();
    return s;
}
SKS_V vnsum vnsum_sub(vnsum s, vf v)
{
    s.p = _mm_add_pd(_mm_add_pd(s.p, _mm_cvtps_pd(v)), _mm_cvtps_pd(_mm_movehl_ps(v, v)));
    return s;
}
SKS_V double vnsum_value(vnsum s)
{
    return -_mm_cvtsd_f64(_mm_add_sd(s.p, _mm_unpackhi_pd(s.p, s.p)));
}

/* ---- rounding, per-item sums, rows of 8 floats ---- */
SKS_V vf vf_round(vf a) { return _mm_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
SKS_V vf vf_hsum4_in_rows(vf a, vf b, vf c, vf d)
{
    const __m128 ab = _mm_add_ps(_mm_shuffle_ps(a, b, _MM_SHUFFLE(1, 0, 1, 0)), _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 2, 3, 2)));
    const __m128 cd = _mm_add_ps(_mm_shuffle_ps(c, d, _MM_SHUFFLE(1, 0, 1, 0)), _mm_shuffle_ps(c, d, _MM_SHUFFLE(3, 2, 3, 2)));
    return _mm_add_ps(_mm_shuffle_ps(ab, cd, _MM_SHUFFLE(2, 0, 2, 0)), _mm_shuffle_ps(ab, cd, _MM_SHUFFLE(3, 1, 3, 1)));
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
    return _mm_set1_ps(*p);
}
SKS_V void vf_transpose_rows(vf *v) { (void)v; }
/* ---- two-source row shuffles and blends, float64 rows ---- */
#define vf_shuffle2_in_rows(a, b, i0, i1, i2, i3) \
    _mm_shuffle_ps((a), (b), _MM_SHUFFLE((i3), (i2), (i1), (i0)))
#define vf_blend_in_rows(a, b, mask) _mm_blend_ps((a), (b), (mask))
#define SKS_VD4_HALVES(name, op)                                                              \
    SKS_V vd4 name(vd4 a, vd4 b)                                                              \
    {                                                                                         \
        vd4 r;                                                                                \
        r.lo = op(a.lo, b.lo);                                                                \
        r.hi = op(a.hi, b.hi);                                                                \
        return r;                                                                             \
    }
SKS_VD4_HALVES(vd4_sub, _mm_sub_pd)
SKS_VD4_HALVES(vd4_div, _mm_div_pd)
#undef SKS_VD4_HALVES
SKS_V vd4 vd4_select_gt(vd4 a, vd4 b, vd4 x, vd4 y)
{
    vd4 r;
    r.lo = _mm_blendv_pd(y.lo, x.lo, _mm_cmpgt_pd(a.lo, b.lo));
    r.hi = _mm_blendv_pd(y.hi, x.hi, _mm_cmpgt_pd(a.hi, b.hi));
    return r;
}
SKS_V void vd4_load_floats_transposed(vd4 r[4], const float *p, ptrdiff_t stride)
{
    __m128 a = _mm_loadu_ps(p), b = _mm_loadu_ps(p + stride);
    __m128 c = _mm_loadu_ps(p + 2 * stride), d = _mm_loadu_ps(p + 3 * stride);
    _MM_TRANSPOSE4_PS(a, b, c, d);
    r[0].lo = _mm_cvtps_pd(a);
    r[0].hi = _mm_cvtps_pd(_mm_movehl_ps(a, a));
    r[1].lo = _mm_cvtps_pd(b);
    r[1].hi = _mm_cvtps_pd(_mm_movehl_ps(b, b));
    r[2].lo = _mm_cvtps_pd(c);
    r[2].hi = _mm_cvtps_pd(_mm_movehl_ps(c, c));
    r[3].lo = _mm_cvtps_pd(d);
    r[3].hi = _mm_cvtps_pd(_mm_movehl_ps(d, d));
}
SKS_V void vd4_store_floats_transposed(float *p, ptrdiff_t stride, const vd4 r[4])
{
    __m128 a = _mm_movelh_ps(_mm_cvtpd_ps(r[0].lo), _mm_cvtpd_ps(r[0].hi));
    __m128 b = _mm_movelh_ps(_mm_cvtpd_ps(r[1].lo), _mm_cvtpd_ps(r[1].hi));
    __m128 c = _mm_movelh_ps(_mm_cvtpd_ps(r[2].lo), _mm_cvtpd_ps(r[2].hi));
    __m128 d = _mm_movelh_ps(_mm_cvtpd_ps(r[3].lo), _mm_cvtpd_ps(r[3].hi));
    _MM_TRANSPOSE4_PS(a, b, c, d);
    _mm_storeu_ps(p, a);
    _mm_storeu_ps(p + stride, b);
    _mm_storeu_ps(p + 2 * stride, c);
    _mm_storeu_ps(p + 3 * stride, d);
}

#endif /* SKS_VEC_IMPL_H */
