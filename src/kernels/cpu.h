/*
 * cpu.h -- run-time CPU feature detection for the dispatch tables.
 */
#ifndef SKS_CPU_H
#define SKS_CPU_H

#include "simd.h"

/* Non-zero when the CPU (and the OS, for the AVX register state) supports the variant.
 * The scalar variant is always supported. Computed once; cheap to call again. */
int sks_cpu_supports(enum sks_isa isa);

/* The canonical name of a variant ("scalar", "sse41", "avx2"), or NULL when out of range. */
const char *sks_isa_name(enum sks_isa isa);

/* The best variant this CPU supports. */
enum sks_isa sks_best_isa(void);

#endif /* SKS_CPU_H */
