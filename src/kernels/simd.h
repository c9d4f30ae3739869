/*
 * simd.h -- the instruction-set variants and the per-ISA vector vocabulary.
 *
 * Dispatch mechanism (one mechanism, used by every kernel family):
 *   Every kernel is written once per variant in its family's source file, next to its
 *   siblings: `<kernel>_scalar`, `<kernel>_sse41`, `<kernel>_avx2` (static functions). The SIMD
 *   variants carry per-function target attributes (SKS_TARGET_SSE41 / SKS_TARGET_AVX2), so
 *   the whole extension is compiled with the baseline flags (no -march) and still contains
 *   the AVX2 code. Each family exports one table per variant (e.g. sks_joints_variants[]),
 *   indexed by `enum sks_isa`; the glue picks the row once at import (see cpu.c).
 *
 * Floating point: the build uses -ffp-contract=off, so a*b+c is never silently fused.
 * Kernels that want FMA call it explicitly, and say so in their comment block.
 *
 * No Python.h here: the kernels are plain C99 plus intrinsics.
 */
#ifndef SKS_SIMD_H
#define SKS_SIMD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum sks_isa {
    SKS_ISA_SCALAR = 0,   /* portable C, always built: the reference variant */
    SKS_ISA_SSE41 = 1,    /* x86-64 SSE4.1, 4 lanes */
    SKS_ISA_AVX2 = 2,     /* x86-64 AVX2 + FMA, 8 lanes */
    SKS_ISA_COUNT = 3
};

#if defined(__x86_64__) || defined(_M_X64)
#define SKS_X86_64 1
#else
#define SKS_X86_64 0
#endif

#if SKS_X86_64 && (defined(__GNUC__) || defined(__clang__))
/* GCC and clang: intrinsics are usable inside functions carrying the matching target. */
#define SKS_HAVE_X86_SIMD 1
#define SKS_TARGET_SSE41 __attribute__((target("sse4.1")))
#define SKS_TARGET_AVX2 __attribute__((target("avx2,fma")))
#include <immintrin.h>
#elif SKS_X86_64 && defined(_MSC_VER)
/* MSVC: every intrinsic is available without flags. */
#define SKS_HAVE_X86_SIMD 1
#define SKS_TARGET_SSE41
#define SKS_TARGET_AVX2
#include <immintrin.h>
#else
/* Other architectures (aarch64 NEON is a later step): only the scalar variant exists, and the
 * SSE4.1/AVX2 rows of every table point at the scalar functions but are never selected. */
#define SKS_HAVE_X86_SIMD 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define SKS_ALWAYS_INLINE inline __attribute__((always_inline))
#define SKS_RESTRICT __restrict__
#elif defined(_MSC_VER)
#define SKS_ALWAYS_INLINE __forceinline
#define SKS_RESTRICT __restrict
#else
#define SKS_ALWAYS_INLINE inline
#define SKS_RESTRICT
#endif

/* Pick a table entry: the variant when x86 SIMD is compiled in, the scalar function otherwise. */
#if SKS_HAVE_X86_SIMD
#define SKS_SIMD_OR_SCALAR(simd_fn, scalar_fn) (simd_fn)
#else
#define SKS_SIMD_OR_SCALAR(simd_fn, scalar_fn) (scalar_fn)
#endif

/* ---- the SSE4.1 vocabulary (also used by the AVX2 variants, which include SSE4.1) ---- */
#if SKS_HAVE_X86_SIMD

/* lane i of v copied into all four lanes (one shuffle) */
#define SKS_SPLAT_LANE(v, i) _mm_shuffle_ps((v), (v), _MM_SHUFFLE((i), (i), (i), (i)))

/* (0, 0, 0, v[3]): keeps the translation lane of a matrix row */
SKS_TARGET_SSE41 static inline __m128 sks_keep_lane3(__m128 v)
{
    return _mm_blend_ps(_mm_setzero_ps(), v, 0x8);
}

#endif /* SKS_HAVE_X86_SIMD */

#endif /* SKS_SIMD_H */
