/*
 * dispatch.c -- the dispatch tables: for every kernel family listed in families.h, one pointer
 * per enum sks_isa to that target's row (defined at the end of the family's source, compiled
 * once per target). Targets not built on this architecture point at the scalar row; cpu.c never
 * reports them as supported, so they are never selected.
 */
#include "simd.h"
#include "joints.h"
#include "quat.h"
#include "surface.h"
#include "blend.h"
#include "convert.h"
#include "compress.h"
#include "mat4.h"
#include "skinning.h"
#include "qts.h"
#include "mm.h"

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

SKS_VARIANTS(joints);
SKS_VARIANTS(quat);
SKS_VARIANTS(surface);
SKS_VARIANTS(blend);
SKS_VARIANTS(convert);
SKS_VARIANTS(compress);
SKS_VARIANTS(mat4);
SKS_VARIANTS(skinning);
SKS_VARIANTS(qts);
SKS_VARIANTS(mm);
