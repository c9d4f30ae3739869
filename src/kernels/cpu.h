/*
 * cpu.h -- run-time CPU feature detection for the dispatch tables.
 */
#ifndef SKS_CPU_H
#define SKS_CPU_H

#include "simd.h"

/* Non-zero when this build contains the variant (scalar always; sse41 and avx2 on x86-64; neon
 * on aarch64). */
int sks_isa_compiled(enum sks_isa isa);

/* Non-zero when the CPU (and the OS, for the AVX register state) supports the variant.
 * The scalar variant is always supported. Computed once; cheap to call again. */
int sks_cpu_supports(enum sks_isa isa);

/* The canonical name of a variant ("scalar", "sse41", "avx2", "neon"), or NULL when out of
 * range. */
const char *sks_isa_name(enum sks_isa isa);

/* The best variant this CPU supports. */
enum sks_isa sks_best_isa(void);

#endif /* SKS_CPU_H */
