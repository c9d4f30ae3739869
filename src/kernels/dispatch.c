/*
 * dispatch.c -- the dispatch tables: for every kernel family listed in families.h, one pointer
 * per enum sks_isa to that target's row (defined at the end of the family's source, compiled
 * once per target). Targets not built on this architecture point at the scalar row; cpu.c never
 * reports them as supported, so they are never selected. The rows are declared through the
 * family's struct tag (struct sks_<family>_kernels, which its header names sks_<family>_kernels),
 * so this file needs no family header and no list of its own.
 */
#include "simd.h"

#if SKS_BUILDS_SSE41
#define SKS_SSE41_ROW(family) &sks_##family##_row_sse41
#else
#define SKS_SSE41_ROW(family) &sks_##family##_row_scalar
#endif
#if SKS_BUILDS_AVX2
#define SKS_AVX2_ROW(family) &sks_##family##_row_avx2
#else
#define SKS_AVX2_ROW(family) &sks_##family##_row_scalar
#endif
#if SKS_BUILDS_NEON
#define SKS_NEON_ROW(family) &sks_##family##_row_neon
#else
#define SKS_NEON_ROW(family) &sks_##family##_row_scalar
#endif

#define SKS_VARIANTS(family)                                                                    \
    extern const sks_##family##_kernels sks_##family##_row_scalar, sks_##family##_row_sse41,    \
        sks_##family##_row_avx2, sks_##family##_row_neon;                                     \
    const sks_##family##_kernels *const sks_##family##_variants[SKS_ISA_COUNT] = {             \
        &sks_##family##_row_scalar, SKS_SSE41_ROW(family), SKS_AVX2_ROW(family),                \
        SKS_NEON_ROW(family)}

#define SKS_FAMILY(family)                                                                      \
    typedef struct sks_##family##_kernels sks_##family##_kernels;                               \
    SKS_VARIANTS(family);
#include "families.h"
#undef SKS_FAMILY
