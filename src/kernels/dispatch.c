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
#if SKS_BUILDS_AVX512
#define SKS_AVX512_ROW(family) &sks_##family##_row_avx512
#else
#define SKS_AVX512_ROW(family) &sks_##family##_row_scalar
#endif
#if SKS_BUILDS_NEON
#define SKS_NEON_ROW(family) &sks_##family##_row_neon
#else
#define SKS_NEON_ROW(family) &sks_##family##_row_scalar
#endif

#define SKS_VARIANTS(family)                                                                    \
    extern const sks_##family##_kernels sks_##family##_row_scalar, sks_##family##_row_sse41,    \
        sks_##family##_row_avx2, sks_##family##_row_neon, sks_##family##_row_avx512;          \
    const sks_##family##_kernels *const sks_##family##_variants[SKS_ISA_COUNT] = {             \
        &sks_##family##_row_scalar, SKS_SSE41_ROW(family), SKS_AVX2_ROW(family),                \
        SKS_NEON_ROW(family), SKS_AVX512_ROW(family)}

#define SKS_FAMILY(family)                                                                      \
    typedef struct sks_##family##_kernels sks_##family##_kernels;                               \
    SKS_VARIANTS(family);
#include "families.h"
#undef SKS_FAMILY


/* ---- which variant each family runs ----
 *
 * sks_family_isa[SKS_FID_<family>] indexes the family's row in SKS_KERNELS. A variant forced by
 * name (SKELSIMD_ISA, skelsimd's use_isa: what tests and benchmark sweeps do) runs in every
 * family. The variant chosen automatically (at import, or "auto") runs in every family except
 * the families listed below for it, which measured slower on it than on the next variant on the
 * machines this project benchmarks on (python -m skelsimd bench prints the table; see
 * docs/guide/benchmarks.md) and keep that one. */
unsigned char sks_family_isa[SKS_FAMILY_COUNT];

static const char *const sks_family_names[SKS_FAMILY_COUNT] = {
#define SKS_FAMILY(name) #name,
#include "families.h"
#undef SKS_FAMILY
};

/* Families that run avx2 when avx512 is chosen automatically (measured slower on avx512). */
static const char *const sks_avx512_keeps_avx2[] = {NULL};

static int sks_listed(const char *const *list, const char *name)
{
    for (; *list != NULL; list++) {
        if (strcmp(*list, name) == 0) return 1;
    }
    return 0;
}

enum sks_isa sks_dispatch_preferred(int family, enum sks_isa isa)
{
    if (isa == SKS_ISA_AVX512 && sks_listed(sks_avx512_keeps_avx2, sks_family_names[family]))
        return SKS_ISA_AVX2;
    return isa;
}

void sks_dispatch_select(enum sks_isa isa, int automatic)
{
    int f;
    for (f = 0; f < SKS_FAMILY_COUNT; f++)
        sks_family_isa[f] = (unsigned char)(automatic ? sks_dispatch_preferred(f, isa) : isa);
}

const char *sks_dispatch_family_name(int family)
{
    return family >= 0 && family < SKS_FAMILY_COUNT ? sks_family_names[family] : NULL;
}
