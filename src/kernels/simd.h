/*
 * simd.h -- the instruction-set targets, compiler portability macros and the dispatch-table
 * plumbing shared by every kernel family.
 *
 * How a kernel family is built (see target.h and the vector vocabulary vec.h):
 *   A family source (joints.c, ...; listed in families.h) is written once against the vector
 *   vocabulary and compiled once per target as its own translation unit, with -DSKS_COMPILING_<T>
 *   and that target's compiler flags (setup.py): scalar everywhere, sse41 and avx2 on x86-64,
 *   neon on aarch64. Inside a family source every kernel is a plain `static` function; the
 *   source ends with its target's table row, SKS_ROW(family) = { kernel, kernel, ... }, an
 *   object named sks_<family>_row_<target>. dispatch.c gathers the rows into
 *   sks_<family>_variants[], one pointer per enum sks_isa (a target not built on this
 *   architecture points at the scalar row and is never selected). The glue picks the row once
 *   per call from the variant chosen at import (cpu.c): SKS_KERNELS(family)->kernel(...).
 *
 * Floating point: the build uses -ffp-contract=off, so a*b+c is never silently fused, and the
 * vocabulary has no fused or estimated operations: every target evaluates the same IEEE float32
 * operations in the same order, so all variants are bit-identical on finite inputs.
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
    SKS_ISA_AVX2 = 2,     /* x86-64 AVX2 (+ FMA present, never used for float math), 8 lanes */
    SKS_ISA_NEON = 3,     /* aarch64 Advanced SIMD, 4 lanes */
    SKS_ISA_COUNT = 4
};

#if defined(__x86_64__) || defined(_M_X64)
#define SKS_X86_64 1
#else
#define SKS_X86_64 0
#endif

#if defined(__aarch64__) || defined(_M_ARM64)
#define SKS_AARCH64 1
#else
#define SKS_AARCH64 0
#endif

/* Which targets setup.py builds on this architecture (it decides by the same test). */
#define SKS_BUILDS_SSE41 SKS_X86_64
#define SKS_BUILDS_AVX2 SKS_X86_64
#define SKS_BUILDS_NEON SKS_AARCH64

#if defined(__GNUC__) || defined(__clang__)
#define SKS_CONSTANT_P(x) __builtin_constant_p(x)
#define SKS_ALWAYS_INLINE inline __attribute__((always_inline))
#define SKS_RESTRICT __restrict__
#define SKS_ALIGNED(n) __attribute__((aligned(n)))
#elif defined(_MSC_VER)
#define SKS_CONSTANT_P(x) 0
#define SKS_ALWAYS_INLINE __forceinline
#define SKS_RESTRICT __restrict
#define SKS_ALIGNED(n) __declspec(align(n))
#else
#define SKS_CONSTANT_P(x) 0
#define SKS_ALWAYS_INLINE inline
#define SKS_RESTRICT
#define SKS_ALIGNED(n)
#endif

/* Token pasting with macro expansion of the arguments. */
#define SKS_PASTE_(a, b) a##b
#define SKS_PASTE(a, b) SKS_PASTE_(a, b)

/* The row of `family` for target `t`: sks_joints_row_avx2, ... */
#define SKS_ROW_NAME(family, t) SKS_PASTE(sks_##family##_row_, t)

/* In the glue: the kernel table of the active variant, e.g. SKS_KERNELS(joints)->local_to_global */
#define SKS_KERNELS(family) (sks_##family##_variants[sks_active_isa])

/* ------------------------------------------------------------------------------------------
 * Legacy hand-written variants (families not yet moved to the vocabulary): per-function target
 * attributes inside one translation unit compiled with the baseline flags.
 * ------------------------------------------------------------------------------------------ */
#if SKS_X86_64 && (defined(__GNUC__) || defined(__clang__))
#define SKS_HAVE_X86_SIMD 1
#define SKS_TARGET_SSE41 __attribute__((target("sse4.1")))
#define SKS_TARGET_AVX2 __attribute__((target("avx2,fma")))
#include <immintrin.h>
#elif SKS_X86_64 && defined(_MSC_VER)
#define SKS_HAVE_X86_SIMD 1
#define SKS_TARGET_SSE41
#define SKS_TARGET_AVX2
#include <immintrin.h>
#else
#define SKS_HAVE_X86_SIMD 0
#endif

#if SKS_HAVE_X86_SIMD
#define SKS_SIMD_OR_SCALAR(simd_fn, scalar_fn) (simd_fn)
/* lane i of v copied into all four lanes (one shuffle) */
#define SKS_SPLAT_LANE(v, i) _mm_shuffle_ps((v), (v), _MM_SHUFFLE((i), (i), (i), (i)))
/* (0, 0, 0, v[3]): keeps the translation lane of a matrix row */
SKS_TARGET_SSE41 static inline __m128 sks_keep_lane3(__m128 v)
{
    return _mm_blend_ps(_mm_setzero_ps(), v, 0x8);
}
#else
#define SKS_SIMD_OR_SCALAR(simd_fn, scalar_fn) (scalar_fn)
#endif

#endif /* SKS_SIMD_H */
