/*
 * cpu.c -- run-time CPU feature detection (CPUID + XGETBV), no compiler builtins needed.
 *
 * AVX2 needs: CPUID.1:ECX.FMA[12], CPUID.1:ECX.OSXSAVE[27], CPUID.1:ECX.AVX[28],
 * CPUID.7.0:EBX.AVX2[5], and the OS saving XMM+YMM state (XCR0 bits 1 and 2).
 * SSE4.1 needs CPUID.1:ECX.SSE4_1[19]. AVX-512 (the avx512 target: F, BW, DQ and VL) needs AVX2
 * and CPUID.7.0:EBX.AVX512F[16], DQ[17], BW[30], VL[31], and the OS saving the opmask and ZMM
 * state as well (XCR0 bits 5, 6 and 7 besides 1 and 2: an OS may enable AVX but not AVX-512, so
 * CPUID alone is not enough). NEON needs nothing: it is baseline on aarch64.
 */
#include "cpu.h"

#if SKS_X86_64 && (defined(__GNUC__) || defined(__clang__))
#define SKS_HAVE_CPUID 1
#include <cpuid.h>
static void sks_cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}
static unsigned sks_max_leaf(void)
{
    return __get_cpuid_max(0, 0);
}
__attribute__((target("xsave"))) static unsigned long long sks_xgetbv0(void)
{
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}
#elif SKS_X86_64 && defined(_MSC_VER)
#define SKS_HAVE_CPUID 1
#include <intrin.h>
static void sks_cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
    int regs[4];
    __cpuidex(regs, (int)leaf, (int)sub);
    r[0] = (unsigned)regs[0]; r[1] = (unsigned)regs[1];
    r[2] = (unsigned)regs[2]; r[3] = (unsigned)regs[3];
}
static unsigned sks_max_leaf(void)
{
    int regs[4];
    __cpuid(regs, 0);
    return (unsigned)regs[0];
}
static unsigned long long sks_xgetbv0(void)
{
    return _xgetbv(0);
}
#else
#define SKS_HAVE_CPUID 0
#endif

static int sks_detected = 0;
static int sks_supported[SKS_ISA_COUNT];

static void sks_detect(void)
{
    sks_supported[SKS_ISA_SCALAR] = 1;
#if SKS_HAVE_CPUID
    unsigned r1[4] = {0, 0, 0, 0}, r7[4] = {0, 0, 0, 0};
    unsigned max_leaf = sks_max_leaf();
    if (max_leaf >= 1) sks_cpuid(1, 0, r1);
    if (max_leaf >= 7) sks_cpuid(7, 0, r7);
    const unsigned ecx1 = r1[2], ebx7 = r7[1];
    sks_supported[SKS_ISA_SSE41] = (ecx1 >> 19) & 1u;
    int avx_os = 0, avx512_os = 0;
    if (((ecx1 >> 27) & 1u) && ((ecx1 >> 28) & 1u)) {
        const unsigned long long xcr0 = sks_xgetbv0();
        avx_os = (xcr0 & 0x6u) == 0x6u;
        avx512_os = (xcr0 & 0xE6u) == 0xE6u;   /* XMM, YMM, opmask, ZMM0-15 upper, ZMM16-31 */
    }
    sks_supported[SKS_ISA_AVX2] = avx_os && ((ecx1 >> 12) & 1u) && ((ebx7 >> 5) & 1u)
                                  && sks_supported[SKS_ISA_SSE41];
    {
        const unsigned need7 = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31);
        sks_supported[SKS_ISA_AVX512] = avx512_os && (ebx7 & need7) == need7
                                        && sks_supported[SKS_ISA_AVX2];
    }
#else
    sks_supported[SKS_ISA_SSE41] = 0;
    sks_supported[SKS_ISA_AVX2] = 0;
    sks_supported[SKS_ISA_AVX512] = 0;
#endif
    /* NEON (Advanced SIMD) is part of ARMv8-A: every aarch64 CPU has it. */
    sks_supported[SKS_ISA_NEON] = SKS_BUILDS_NEON;
    sks_detected = 1;
}

int sks_isa_compiled(enum sks_isa isa)
{
    switch (isa) {
    case SKS_ISA_SCALAR: return 1;
    case SKS_ISA_SSE41: return SKS_BUILDS_SSE41;
    case SKS_ISA_AVX2: return SKS_BUILDS_AVX2;
    case SKS_ISA_NEON: return SKS_BUILDS_NEON;
    case SKS_ISA_AVX512: return SKS_BUILDS_AVX512;
    default: return 0;
    }
}

int sks_cpu_supports(enum sks_isa isa)
{
    if (!sks_isa_compiled(isa)) return 0;
    if (!sks_detected) sks_detect();
    return sks_supported[isa];
}

const char *sks_isa_name(enum sks_isa isa)
{
    static const char *const names[SKS_ISA_COUNT] = {"scalar", "sse41", "avx2", "neon",
                                                                "avx512"};
    if ((int)isa < 0 || isa >= SKS_ISA_COUNT) return NULL;
    return names[isa];
}

enum sks_isa sks_best_isa(void)
{
    int i;
    for (i = SKS_ISA_COUNT - 1; i > 0; i--) {
        if (sks_cpu_supports((enum sks_isa)i)) return (enum sks_isa)i;
    }
    return SKS_ISA_SCALAR;
}
