/*
 * target.h -- included first by every kernel family source (the files listed in families.h).
 *
 * A family source is compiled once per target, each time as its own translation unit with
 * -DSKS_COMPILING_<TARGET> and the target's flags (setup.py; tests/native/build.py for the C
 * checks). This header names the target being compiled and brings in its vector vocabulary:
 *
 *   SKS_TARGET        scalar | sse41 | avx2 | avx512 | neon   (a token)
 *   SKS_TARGET_ISA    the matching enum sks_isa value
 *   SKS_ROW(family)   the definition of this target's table row of `family`, e.g.
 *                         SKS_ROW(joints) = {local_to_global, ...};
 *                     defines the object sks_joints_row_<target> that dispatch.c collects.
 *
 * Everything else in a family source is `static` and carries no target suffix: each target's
 * copy lives in its own translation unit. What truly differs per target is a vocabulary
 * operation (vec.h) or a documented tuning constant (e.g. how many skeletons a walk keeps side
 * by side), never a second copy of a kernel.
 */
#ifndef SKS_TARGET_H
#define SKS_TARGET_H

#if defined(SKS_COMPILING_SCALAR)
#define SKS_TARGET scalar
#define SKS_TARGET_ISA SKS_ISA_SCALAR
#elif defined(SKS_COMPILING_SSE41)
#define SKS_TARGET sse41
#define SKS_TARGET_ISA SKS_ISA_SSE41
#elif defined(SKS_COMPILING_AVX2)
#define SKS_TARGET avx2
#define SKS_TARGET_ISA SKS_ISA_AVX2
#elif defined(SKS_COMPILING_AVX512)
#define SKS_TARGET avx512
#define SKS_TARGET_ISA SKS_ISA_AVX512
#elif defined(SKS_COMPILING_NEON)
#define SKS_TARGET neon
#define SKS_TARGET_ISA SKS_ISA_NEON
#else
#error "kernel family sources are compiled once per target with -DSKS_COMPILING_<TARGET>"
#endif

#include "vec.h"

#define SKS_ROW(family) const sks_##family##_kernels SKS_ROW_NAME(family, SKS_TARGET)

#endif /* SKS_TARGET_H */
