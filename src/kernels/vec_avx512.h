/*
 * vec_avx512.h -- the vector vocabulary on x86-64 AVX-512 (F, BW, DQ, VL): the avx2 layout
 * (vf = __m256, 8 lanes, two rows of 4) compiled with -mavx512f -mavx512bw -mavx512dq
 * -mavx512vl, so every operation is EVEX-encoded with 32 vector registers (fewer spills in the
 * long kernels), and the partial accesses use opmask registers instead of AVX's VMASKMOVPS and
 * scalar pieces:
 *   vf_load_n / vf_store_n         one masked load / store (k = first n lanes); masked-out lanes
 *                                  are neither read nor written and never fault
 *   vf_load_rows_xyz / _store_     a 3-float row is one masked access; contiguous rows (stride
 *                                  3) one masked 6-float access and one permute
 *   vi_load_u8_n                   one masked byte load (BW)
 * Every other operation is vec_avx2.h's, the same IEEE operations in the same order, so the
 * results are bit-identical to avx2's and scalar's. See vec.h for the meaning of each operation.
 *
 * Why 8 lanes and not 16: the vocabulary's kernels are written for rows of one or two 4-lane
 * items per vector (quat_ops.h asserts SKS_ROWS <= 2), and the Zen 4 cores this project
 * measures on execute a 512-bit operation as two 256-bit halves, so 16 lanes buy no arithmetic
 * throughput there; what AVX-512 adds on them is the opmask tails, the extra registers and the
 * two-source permutes.
 */
#ifndef SKS_VEC_AVX512_H
#define SKS_VEC_AVX512_H

#define SKS_VEC_AVX512 1
#include "vec_avx2.h"

/* The first n <= 8 lanes as an opmask. */
SKS_V __mmask8 sks_kfirst(size_t n) { return (__mmask8)((1u << (n < 8 ? n : 8)) - 1u); }

SKS_V vf vf_load_n(const float *p, size_t n) { return _mm256_maskz_loadu_ps(sks_kfirst(n), p); }
SKS_V void vf_store_n(float *p, vf v, size_t n) { _mm256_mask_storeu_ps(p, sks_kfirst(n), v); }

SKS_V vf vf_load_rows_xyz(const float *p, ptrdiff_t stride, size_t count)
{
    if (count >= 2) {
        if (SKS_CONSTANT_P(stride) && stride == 3)   /* (x0 y0 z0 x1 y1 z1) -> rows, lane 3 = 0 */
            return _mm256_maskz_permutexvar_ps(0x77, _mm256_setr_epi32(0, 1, 2, 0, 3, 4, 5, 0),
                                               _mm256_maskz_loadu_ps(0x3F, p));
        return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_maskz_loadu_ps(0x7, p)),
                                    _mm_maskz_loadu_ps(0x7, p + stride), 1);
    }
    return count ? SKS_ZEXT128(_mm_maskz_loadu_ps(0x7, p)) : _mm256_setzero_ps();
}
SKS_V void vf_store_rows_xyz(float *p, ptrdiff_t stride, vf v, size_t count)
{
    if (count >= 2) {
        if (SKS_CONSTANT_P(stride) && stride == 3) {
            _mm256_mask_storeu_ps(p, 0x3F, _mm256_permutexvar_ps(
                                                _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7), v));
            return;
        }
        _mm_mask_storeu_ps(p + stride, 0x7, _mm256_extractf128_ps(v, 1));
    }
    if (count) _mm_mask_storeu_ps(p, 0x7, _mm256_castps256_ps128(v));
}

/* Twelve floats: two overlapping 8-float loads (at p and p + 4), each one zero-masked
 * permute. */
SKS_V void vf_load_rows_xyz2(const float *p, vf *a, vf *b)
{
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 0, 3, 4, 5, 0);
    *a = _mm256_maskz_permutexvar_ps(0x77, idx, _mm256_loadu_ps(p));
    *b = _mm256_maskz_permutexvar_ps(0x77, _mm256_add_epi32(idx, _mm256_set1_epi32(2)),
                                     _mm256_loadu_ps(p + 4));
}

SKS_V void vf_store_rows_xyz2(float *p, vf a, vf b)
{
    /* (x0 y0 z0 x1 y1 z1 x2 y2) from both; (z2 x3 y3 z3) from b */
    _mm256_storeu_ps(p, _mm256_permutex2var_ps(a, _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9), b));
    _mm_storeu_ps(p + 8, _mm256_castps256_ps128(_mm256_permutexvar_ps(
                             _mm256_setr_epi32(2, 4, 5, 6, 2, 4, 5, 6), b)));
}

SKS_V vi vi_load_u8_n(const unsigned char *p, size_t n)
{
    return _mm256_cvtepu8_epi32(_mm_maskz_loadu_epi8((__mmask16)sks_kfirst(n), p));
}

#endif /* SKS_VEC_AVX512_H */
