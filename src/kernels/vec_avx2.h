/*
 * vec_avx2.h -- the vector vocabulary on x86-64 AVX2: vf = __m256, 8 lanes, two rows of 4 per
 * vector (row 0 = lanes 0-3, row 1 = lanes 4-7). Included through vec.h in translation units
 * compiled with -mavx2 -mfma (and by vec_avx512.h, which replaces the operations marked
 * SKS_VEC_AVX512); see vec.h for the meaning of every operation. FMA instructions are
 * available to the compiler but never generated for float math (-ffp-contract=off) and never
 * used here.
 */
#ifndef SKS_VEC_IMPL_H
#define SKS_VEC_IMPL_H

#include <immintrin.h>

#define SKS_W 8
#define SKS_ROWS 2
#define SKS_VEC_ALIGN 32

typedef __m256 vf;
typedef __m256 vm;
typedef __m256i vi;
typedef struct vd4 {
    __m256d v;
} vd4;

#define SKS_V static SKS_ALWAYS_INLINE

/* (x, 0): a 128-bit value in the low half, zeros above (vmovups xmm zero-extends). */
#if (defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 10) || defined(__clang__) \
    || defined(_MSC_VER)
#define SKS_ZEXT128(x) _mm256_zextps128_ps256(x)
#else
#define SKS_ZEXT128(x) _mm256_insertf128_ps(_mm256_setzero_ps(), (x), 0)
#endif

SKS_V vm vm_first_n(size_t n)
{
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), idx));
}

/* ---- memory ---- */
SKS_V vf vf_load(const float *p) { return _mm256_loadu_ps(p); }
SKS_V vf vf_load_aligned(const float *p) { return _mm256_load_ps(p); }
SKS_V void vf_store(float *p, vf v) { _mm256_storeu_ps(p, v); }
SKS_V void vf_store_aligned(float *p, vf v) { _mm256_store_ps(p, v); }
#ifndef SKS_VEC_AVX512   /* vec_avx512.h: opmask versions */
SKS_V vf vf_load_n(const float *p, size_t n)
{
    return _mm256_maskload_ps(p, _mm256_castps_si256(vm_first_n(n)));
}
SKS_V void vf_store_n(float *p, vf v, size_t n)
{
    _mm256_maskstore_ps(p, _mm256_castps_si256(vm_first_n(n)), v);
}
#else
SKS_V vf vf_load_n(const float *p, size_t n);
SKS_V void vf_store_n(float *p, vf v, size_t n);
#endif

/* ---- construction ---- */
SKS_V vf vf_set1(float x) { return _mm256_set1_ps(x); }
SKS_V vf vf_zero(void) { return _mm256_setzero_ps(); }
SKS_V float vf_first(vf v) { return _mm256_cvtss_f32(v); }

/* ---- arithmetic ---- */
SKS_V vf vf_add(vf a, vf b) { return _mm256_add_ps(a, b); }
SKS_V vf vf_sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
SKS_V vf vf_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
SKS_V vf vf_div(vf a, vf b) { return _mm256_div_ps(a, b); }
SKS_V vf vf_sqrt(vf a) { return _mm256_sqrt_ps(a); }
SKS_V vf vf_min(vf a, vf b) { return _mm256_min_ps(a, b); }
SKS_V vf vf_max(vf a, vf b) { return _mm256_max_ps(a, b); }

/* ---- bits ---- */
SKS_V vf vf_and(vf a, vf b) { return _mm256_and_ps(a, b); }
SKS_V vf vf_or(vf a, vf b) { return _mm256_or_ps(a, b); }
SKS_V vf vf_xor(vf a, vf b) { return _mm256_xor_ps(a, b); }
SKS_V vf vf_andnot(vf a, vf b) { return _mm256_andnot_ps(a, b); }
SKS_V vf vf_neg(vf a) { return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f)); }
SKS_V vf vf_abs(vf a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }

/* ---- comparisons and masks ---- */
SKS_V vm vf_lt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
SKS_V vm vf_le(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
SKS_V vm vf_gt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
SKS_V vm vf_ge(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
SKS_V vm vf_eq(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
SKS_V vm vf_neq(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ); }
SKS_V vm vf_unordered(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_UNORD_Q); }
SKS_V vm vm_and(vm a, vm b) { return _mm256_and_ps(a, b); }
SKS_V vm vm_or(vm a, vm b) { return _mm256_or_ps(a, b); }
SKS_V vm vm_andnot(vm a, vm b) { return _mm256_andnot_ps(a, b); }
SKS_V vm vm_not(vm a) { return _mm256_xor_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(-1))); }
SKS_V unsigned vm_bits(vm m) { return (unsigned)_mm256_movemask_ps(m); }
SKS_V int vm_any(vm m) { return _mm256_movemask_ps(m) != 0; }
SKS_V int vm_all(vm m) { return _mm256_movemask_ps(m) == 0xFF; }
SKS_V vf vf_select(vm m, vf a, vf b) { return _mm256_blendv_ps(b, a, m); }
SKS_V vf vf_if(vm m, vf a) { return _mm256_and_ps(m, a); }
SKS_V vf vf_ifnot(vm m, vf a) { return _mm256_andnot_ps(m, a); }

/* ---- rows: two groups of 4 lanes ---- */
/* Contiguous rows (stride 4, known at compile time) are one 256-bit load or store; a repeated
 * row (stride 0) one broadcast. */
SKS_V vf vf_load_rows(const float *p, ptrdiff_t stride)
{
    if (SKS_CONSTANT_P(stride) && stride == 4) return _mm256_loadu_ps(p);
    if (SKS_CONSTANT_P(stride) && stride == 0) return _mm256_broadcast_ps((const __m128 *)(const void *)p);
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p)), _mm_loadu_ps(p + stride), 1);
}
SKS_V void vf_store_rows(float *p, ptrdiff_t stride, vf v)
{
    if (SKS_CONSTANT_P(stride) && stride == 4) {
        _mm256_storeu_ps(p, v);
        return;
    }
    _mm_storeu_ps(p, _mm256_castps256_ps128(v));
    _mm_storeu_ps(p + stride, _mm256_extractf128_ps(v, 1));
}
SKS_V vf vf_load_rows_n(const float *p, size_t n)
{
    return n >= 2 ? _mm256_loadu_ps(p) : SKS_ZEXT128(_mm_loadu_ps(p));
}
SKS_V void vf_store_rows_n(float *p, vf v, size_t n)
{
    if (n >= 2) {
        _mm256_storeu_ps(p, v);
    } else {
        _mm_storeu_ps(p, _mm256_castps256_ps128(v));
    }
}
SKS_V vf vf_broadcast_row(const float *p)
{
    return _mm256_broadcast_ps((const __m128 *)(const void *)p);
}
#define vf_shuffle_in_rows(v, i0, i1, i2, i3) \
    _mm256_permute_ps((v), _MM_SHUFFLE((i3), (i2), (i1), (i0)))
#define vf_splat_in_rows(v, i) _mm256_permute_ps((v), _MM_SHUFFLE((i), (i), (i), (i)))
SKS_V vf vf_keep_lane3(vf v) { return _mm256_blend_ps(_mm256_setzero_ps(), v, 0x88); }
SKS_V vf vf_clear_lane3(vf v) { return _mm256_blend_ps(v, _mm256_setzero_ps(), 0x88); }
SKS_V void vf_transpose4_in_rows(vf *a, vf *b, vf *c, vf *d)
{
    const __m256 t0 = _mm256_unpacklo_ps(*a, *b), t1 = _mm256_unpackhi_ps(*a, *b);
    const __m256 t2 = _mm256_unpacklo_ps(*c, *d), t3 = _mm256_unpackhi_ps(*c, *d);
    *a = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    *b = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    *c = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    *d = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

/* ---- 32-bit integer lanes ---- */
SKS_V vi vi_load(const int32_t *p) { return _mm256_loadu_si256((const __m256i *)(const void *)p); }
SKS_V void vi_store(int32_t *p, vi v) { _mm256_storeu_si256((__m256i *)(void *)p, v); }
SKS_V vi vi_set1(int32_t x) { return _mm256_set1_epi32(x); }
SKS_V vi vi_add(vi a, vi b) { return _mm256_add_epi32(a, b); }
SKS_V vi vi_sub(vi a, vi b) { return _mm256_sub_epi32(a, b); }
SKS_V vi vi_and(vi a, vi b) { return _mm256_and_si256(a, b); }
SKS_V vi vi_or(vi a, vi b) { return _mm256_or_si256(a, b); }
#define vi_shl(v, n) _mm256_slli_epi32((v), (n))
#define vi_shr(v, n) _mm256_srli_epi32((v), (n))
SKS_V vm vi_eq(vi a, vi b) { return _mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b)); }
SKS_V vm vi_gt(vi a, vi b) { return _mm256_castsi256_ps(_mm256_cmpgt_epi32(a, b)); }
SKS_V vf vf_from_vi(vi v) { return _mm256_cvtepi32_ps(v); }
SKS_V vi vi_from_vf_trunc(vf v) { return _mm256_cvttps_epi32(v); }
SKS_V vf vf_bits_from_vi(vi v) { return _mm256_castsi256_ps(v); }
SKS_V vi vi_bits_from_vf(vf v) { return _mm256_castps_si256(v); }

/* ---- item order (SoA blocks): lane l of row r holds item 2 l + r ---- */
SKS_V vf vf_load_rows_count(const float *p, ptrdiff_t stride, size_t count)
{
    if (count >= 2) return vf_load_rows(p, stride);
    return count ? SKS_ZEXT128(_mm_loadu_ps(p)) : _mm256_setzero_ps();
}
SKS_V void vf_store_rows_count(float *p, ptrdiff_t stride, vf v, size_t count)
{
    if (count >= 2) {
        vf_store_rows(p, stride, v);
    } else if (count) {
        _mm_storeu_ps(p, _mm256_castps256_ps128(v));
    }
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
#ifndef SKS_VEC_AVX512   /* vec_avx512.h: opmask versions */
SKS_V vf vf_load_rows_xyz(const float *p, ptrdiff_t stride, size_t count)
{
    if (count >= 2)
        return _mm256_insertf128_ps(_mm256_castps128_ps256(sks_load3_sse(p)), sks_load3_sse(p + stride), 1);
    return count ? SKS_ZEXT128(sks_load3_sse(p)) : _mm256_setzero_ps();
}
SKS_V void vf_store_rows_xyz(float *p, ptrdiff_t stride, vf v, size_t count)
{
    if (count) sks_store3_sse(p, _mm256_castps256_ps128(v));
    if (count >= 2) sks_store3_sse(p + stride, _mm256_extractf128_ps(v, 1));
}
#else
SKS_V vf vf_load_rows_xyz(const float *p, ptrdiff_t stride, size_t count);
SKS_V void vf_store_rows_xyz(float *p, ptrdiff_t stride, vf v, size_t count);
#endif
#ifndef SKS_VEC_AVX512   /* vec_avx512.h: opmask versions */
/* Twelve floats: two overlapping 8-float loads (at p and p + 4) permuted into rows, lane 3
 * cleared; stored as 8 floats and 4 (two permutes and a blend). */
SKS_V void vf_load_rows_xyz2(const float *p, vf *a, vf *b)
{
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 0, 3, 4, 5, 0);
    *a = _mm256_blend_ps(_mm256_permutevar8x32_ps(_mm256_loadu_ps(p), idx), _mm256_setzero_ps(), 0x88);
    *b = _mm256_blend_ps(_mm256_permutevar8x32_ps(_mm256_loadu_ps(p + 4),
                                                  _mm256_add_epi32(idx, _mm256_set1_epi32(2))),
                         _mm256_setzero_ps(), 0x88);
}
#else
SKS_V void vf_load_rows_xyz2(const float *p, vf *a, vf *b);
#endif
#ifndef SKS_VEC_AVX512   /* vec_avx512.h: a two-source permute */
SKS_V void vf_store_rows_xyz2(float *p, vf a, vf b)
{
    /* a = (x0 y0 z0 . | x1 y1 z1 .), b = (x2 y2 z2 . | x3 y3 z3 .) */
    const __m256 lo = _mm256_permutevar8x32_ps(a, _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 6, 6));
    const __m256 hi = _mm256_permutevar8x32_ps(b, _mm256_setr_epi32(2, 4, 5, 6, 0, 0, 0, 1));
    _mm256_storeu_ps(p, _mm256_blend_ps(lo, hi, 0xC0));
    _mm_storeu_ps(p + 8, _mm256_castps256_ps128(hi));
}
#else
SKS_V void vf_store_rows_xyz2(float *p, vf a, vf b);
#endif
SKS_V vm vm_first_items(size_t n)
{
    const __m256i item = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    return _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n < 8 ? n : 8)), item));
}
SKS_V vf vf_load_items(const float *p)
{
    return _mm256_permutevar8x32_ps(_mm256_loadu_ps(p), _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
}
SKS_V vf vf_load_items_n(const float *p, size_t n)
{
    return _mm256_permutevar8x32_ps(vf_load_n(p, n), _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
}
SKS_V void vf_store_items(float *p, vf v)
{
    _mm256_storeu_ps(p, _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
}
SKS_V void vf_store_items_n(float *p, vf v, size_t n)
{
    vf_store_n(p, _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)), n);
}

/* ---- a row of four doubles ---- */
SKS_V vd4 vd4_from_floats(const float *p)
{
    vd4 r;
    r.v = _mm256_cvtps_pd(_mm_loadu_ps(p));
    return r;
}
SKS_V vd4 vd4_load(const double *p)
{
    vd4 r;
    r.v = _mm256_loadu_pd(p);
    return r;
}
SKS_V void vd4_store(double *p, vd4 v) { _mm256_storeu_pd(p, v.v); }
SKS_V void vd4_store_floats(float *p, vd4 v) { _mm_storeu_ps(p, _mm256_cvtpd_ps(v.v)); }
SKS_V vd4 vd4_broadcast(const double *p)
{
    vd4 r;
    r.v = _mm256_broadcast_sd(p);
    return r;
}
SKS_V vd4 vd4_lane3_of(const double *p)
{
    vd4 r;
    r.v = _mm256_blend_pd(_mm256_setzero_pd(), _mm256_broadcast_sd(p), 0x8);
    return r;
}
SKS_V vd4 vd4_set1(double x)
{
    vd4 r;
    r.v = _mm256_set1_pd(x);
    return r;
}
SKS_V vd4 vd4_lane3(double x)
{
    vd4 r;
    r.v = _mm256_blend_pd(_mm256_setzero_pd(), _mm256_set1_pd(x), 0x8);
    return r;
}
SKS_V vd4 vd4_add(vd4 a, vd4 b)
{
    vd4 r;
    r.v = _mm256_add_pd(a.v, b.v);
    return r;
}
SKS_V vd4 vd4_mul(vd4 a, vd4 b)
{
    vd4 r;
    r.v = _mm256_mul_pd(a.v, b.v);
    return r;
}

/* ---- bytes and float64 sums ---- */
#ifndef SKS_VEC_AVX512   /* vec_avx512.h: opmask versions */
SKS_V vi vi_load_u8_n(const unsigned char *p, size_t n)
{
    int64_t bytes = 0;
    memcpy(&bytes, p, n < 8 ? n : 8);
    return _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(bytes));
}
#else
SKS_V vi vi_load_u8_n(const unsigned char *p, size_t n);
#endif
SKS_V vi vi_load_u8(const unsigned char *p) { return vi_load_u8_n(p, 8); }

/* Negated float64 sum: four partial sums of the lanes (lanes i and i + 4 of every vector),
 * combined as (p0 + p2) + (p1 + p3) and negated once at the end. */
typedef struct vnsum {
    __m256d p;
} vnsum;
SKS_V vnsum vnsum_zero(void)
{
    vnsum s;
    s.p = _mm256_setzero_pd();
    return s;
}
SKS_V vnsum vnsum_sub(vnsum s, vf v)
{
    s.p = _mm256_add_pd(_mm256_add_pd(s.p, _mm256_cvtps_pd(_mm256_castps256_ps128(v))),
                        _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    return s;
}
SKS_V double vnsum_value(vnsum s)
{
    const __m128d h = _mm_add_pd(_mm256_castpd256_pd128(s.p), _mm256_extractf128_pd(s.p, 1));
    return -_mm_cvtsd_f64(_mm_add_sd(h, _mm_unpackhi_pd(h, h)));
}

/* ---- rounding, per-item sums, rows of 8 floats ---- */
SKS_V vf vf_round(vf a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
/* In each 128-bit row: 6 in-lane shuffles and 3 additions for four dot products' reduction. */
SKS_V vf vf_hsum4_in_rows(vf a, vf b, vf c, vf d)
{
    const __m256 ab = _mm256_add_ps(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(1, 0, 1, 0)),
                                    _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 2, 3, 2)));
    const __m256 cd = _mm256_add_ps(_mm256_shuffle_ps(c, d, _MM_SHUFFLE(1, 0, 1, 0)),
                                    _mm256_shuffle_ps(c, d, _MM_SHUFFLE(3, 2, 3, 2)));
    return _mm256_add_ps(_mm256_shuffle_ps(ab, cd, _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm256_shuffle_ps(ab, cd, _MM_SHUFFLE(3, 1, 3, 1)));
}
/* One 256-bit load or store per row slot and a 128-bit lane exchange per pair of vectors
 * (instead of two 128-bit accesses per slot and vector). */
SKS_V void vf_load_rows2_count(const float *p, ptrdiff_t stride, vf *a, vf *b, size_t count)
{
    if (count >= 2) {
        const __m256 r0 = _mm256_loadu_ps(p), r1 = _mm256_loadu_ps(p + stride);
        *a = _mm256_permute2f128_ps(r0, r1, 0x20);
        *b = _mm256_permute2f128_ps(r0, r1, 0x31);
    } else if (count) {
        const __m256 r0 = _mm256_loadu_ps(p);
        *a = SKS_ZEXT128(_mm256_castps256_ps128(r0));
        *b = SKS_ZEXT128(_mm256_extractf128_ps(r0, 1));
    } else {
        *a = *b = _mm256_setzero_ps();
    }
}
SKS_V void vf_store_rows2_count(float *p, ptrdiff_t stride, vf a, vf b, size_t count)
{
    if (count) _mm256_storeu_ps(p, _mm256_permute2f128_ps(a, b, 0x20));
    if (count >= 2) _mm256_storeu_ps(p + stride, _mm256_permute2f128_ps(a, b, 0x31));
}

/* ---- rows of one item, row transposes ---- */
SKS_V vf vf_set1_rows(const float *p, ptrdiff_t stride)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_broadcast_ss(p)),
                                _mm_broadcast_ss(p + stride), 1);
}
SKS_V void vf_transpose_rows(vf *v)
{
    const __m256 a = v[0], b = v[1];
    v[0] = _mm256_insertf128_ps(a, _mm256_castps256_ps128(b), 1);   /* (a row 0, b row 0) */
    v[1] = _mm256_permute2f128_ps(a, b, 0x31);                      /* (a row 1, b row 1) */
}
/* ---- two-source row shuffles and blends, float64 rows ---- */
#define vf_shuffle2_in_rows(a, b, i0, i1, i2, i3) \
    _mm256_shuffle_ps((a), (b), _MM_SHUFFLE((i3), (i2), (i1), (i0)))
#define vf_blend_in_rows(a, b, mask) _mm256_blend_ps((a), (b), ((mask) | ((mask) << 4)))
#define SKS_VD4_WHOLE(name, op)                                                               \
    SKS_V vd4 name(vd4 a, vd4 b)                                                              \
    {                                                                                         \
        vd4 r;                                                                                \
        r.v = op(a.v, b.v);                                                                   \
        return r;                                                                             \
    }
SKS_VD4_WHOLE(vd4_sub, _mm256_sub_pd)
SKS_VD4_WHOLE(vd4_div, _mm256_div_pd)
#undef SKS_VD4_WHOLE
SKS_V vd4 vd4_select_gt(vd4 a, vd4 b, vd4 x, vd4 y)
{
    vd4 r;
    r.v = _mm256_blendv_pd(y.v, x.v, _mm256_cmp_pd(a.v, b.v, _CMP_GT_OQ));
    return r;
}
SKS_V void vd4_load_floats_transposed(vd4 r[4], const float *p, ptrdiff_t stride)
{
    __m128 a = _mm_loadu_ps(p), b = _mm_loadu_ps(p + stride);
    __m128 c = _mm_loadu_ps(p + 2 * stride), d = _mm_loadu_ps(p + 3 * stride);
    _MM_TRANSPOSE4_PS(a, b, c, d);
    r[0].v = _mm256_cvtps_pd(a);
    r[1].v = _mm256_cvtps_pd(b);
    r[2].v = _mm256_cvtps_pd(c);
    r[3].v = _mm256_cvtps_pd(d);
}
SKS_V void vd4_store_floats_transposed(float *p, ptrdiff_t stride, const vd4 r[4])
{
    __m128 a = _mm256_cvtpd_ps(r[0].v), b = _mm256_cvtpd_ps(r[1].v);
    __m128 c = _mm256_cvtpd_ps(r[2].v), d = _mm256_cvtpd_ps(r[3].v);
    _MM_TRANSPOSE4_PS(a, b, c, d);
    _mm_storeu_ps(p, a);
    _mm_storeu_ps(p + stride, b);
    _mm_storeu_ps(p + 2 * stride, c);
    _mm_storeu_ps(p + 3 * stride, d);
}

#endif /* SKS_VEC_IMPL_H */
