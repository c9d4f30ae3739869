/*
 * simd.h -- the instruction-set targets, compiler portability macros and the dispatch-table
 * plumbing shared by every kernel family.
 *
 * How a kernel family is built (see target.h and the vector vocabulary vec.h):
 *   A family source (joints.c, ...; listed in families.h) is written once against the vector
 *   vocabulary and compiled once per target as its own translation unit, with -DSKS_COMPILING_<T>
 *   and that target's compiler flags (setup.py): scalar everywhere, sse41, avx2 and avx512 on
 *   x86-64, neon on aarch64. Inside a family source every kernel is a plain `static` function; the
 *   source ends with its target's table row, SKS_ROW(family) = { kernel, kernel, ... }, an
 *   object named sks_<family>_row_<target>. dispatch.c gathers the rows into
 *   sks_<family>_variants[], one pointer per enum sks_isa (a target not built on this
 *   architecture points at the scalar row and is never selected). The glue picks the row once
 *   per call from the variant chosen for the family at import (cpu.c, dispatch.c):
 *   SKS_KERNELS(family)->kernel(...).
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
    SKS_ISA_AVX512 = 4,   /* x86-64 AVX-512 F/BW/DQ/VL: avx2's 8 lanes with EVEX encodings (32
                           * registers) and opmask tails (vec_avx512.h) */
    SKS_ISA_COUNT = 5
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
#define SKS_BUILDS_AVX512 SKS_X86_64
#define SKS_BUILDS_NEON SKS_AARCH64

#if defined(__GNUC__) || defined(__clang__)
#define SKS_CONSTANT_P(x) __builtin_constant_p(x)
#define SKS_ALWAYS_INLINE inline __attribute__((always_inline))
#define SKS_NOINLINE __attribute__((noinline))
#define SKS_RESTRICT __restrict__
#define SKS_ALIGNED(n) __attribute__((aligned(n)))
#elif defined(_MSC_VER)
#define SKS_CONSTANT_P(x) 0
#define SKS_ALWAYS_INLINE __forceinline
#define SKS_NOINLINE __declspec(noinline)
#define SKS_RESTRICT __restrict
#define SKS_ALIGNED(n) __declspec(align(n))
#else
#define SKS_CONSTANT_P(x) 0
#define SKS_ALWAYS_INLINE inline
#define SKS_NOINLINE
#define SKS_RESTRICT
#define SKS_ALIGNED(n)
#endif

/* Token pasting with macro expansion of the arguments. */
#define SKS_PASTE_(a, b) a##b
#define SKS_PASTE(a, b) SKS_PASTE_(a, b)

/* The row of `family` for target `t`: sks_joints_row_avx2, ... */
#define SKS_ROW_NAME(family, t) SKS_PASTE(sks_##family##_row_, t)

/* Per-family dispatch: every family in families.h has an id, SKS_FID_<family>, and the variant
 * it runs, sks_family_isa[id] (set by sks_dispatch_select in dispatch.c: the active variant, or
 * for a family that measured slower on it the faster one, see sks_dispatch_select). */
enum sks_family_id {
#define SKS_FAMILY(name) SKS_FID_##name,
#include "families.h"
#undef SKS_FAMILY
    SKS_FAMILY_COUNT
};
extern unsigned char sks_family_isa[SKS_FAMILY_COUNT];

/* In the glue: the kernel table the family runs, e.g. SKS_KERNELS(joints)->local_to_global */
#define SKS_KERNELS(family) (sks_##family##_variants[sks_family_isa[SKS_FID_##family]])

#endif /* SKS_SIMD_H */
