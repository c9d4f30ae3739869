/*
 * cpu.h -- run-time CPU feature detection for the dispatch tables.
 */
#ifndef SKS_CPU_H
#define SKS_CPU_H

#include "simd.h"

/* Non-zero when this build contains the variant (scalar always; sse41, avx2 and avx512 on
 * x86-64; neon on aarch64). */
int sks_isa_compiled(enum sks_isa isa);

/* Non-zero when the CPU (and the OS, for the AVX register state) supports the variant.
 * The scalar variant is always supported. Computed once; cheap to call again. */
int sks_cpu_supports(enum sks_isa isa);

/* The canonical name of a variant ("scalar", "sse41", "avx2", "neon", "avx512"), or NULL when out of
 * range. */
const char *sks_isa_name(enum sks_isa isa);

/* The best variant this CPU supports. */
enum sks_isa sks_best_isa(void);

/* Per-family dispatch (dispatch.c): make every family run `isa` (automatic = 0: a variant forced
 * by name), or `isa` except where a family measured slower on it (automatic = 1: the variant
 * chosen at import). */
void sks_dispatch_select(enum sks_isa isa, int automatic);

/* The variant family `family` (an enum sks_family_id) runs when `isa` is chosen automatically. */
enum sks_isa sks_dispatch_preferred(int family, enum sks_isa isa);

/* The name of family `family` as in families.h, or NULL when out of range. */
const char *sks_dispatch_family_name(int family);

#endif /* SKS_CPU_H */
