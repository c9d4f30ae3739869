/*
 * check.h -- helpers of the native bit-identity checks (see build.py): a deterministic random
 * generator, inputs with special values, and comparisons of a variant's output with the scalar
 * variant's, bit for bit (two NaNs compare equal whatever their sign and payload).
 *
 * A family's checks live in check_<family>.c and define
 *     int check_<family>(enum sks_isa isa, uint64_t seed);
 * which runs every kernel of sks_<family>_variants[isa] against sks_<family>_variants[SKS_ISA_SCALAR]
 * and returns the number of mismatching cases (after printing the first few).
 */
#ifndef SKS_CHECK_H
#define SKS_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simd.h"

typedef struct check_rng {
    uint64_t s;
} check_rng;

/* splitmix64 */
static inline uint64_t rng_next(check_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static inline double rng_unit(check_rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }
static inline float rng_uniform(check_rng *r, float lo, float hi)
{
    return (float)(lo + (hi - lo) * rng_unit(r));
}
static inline size_t rng_below(check_rng *r, size_t n) { return n ? (size_t)(rng_next(r) % n) : 0; }

static inline void fill_uniform(float *x, size_t n, float lo, float hi, check_rng *r)
{
    size_t i;
    for (i = 0; i < n; i++) x[i] = rng_uniform(r, lo, hi);
}

/* A random unit quaternion (x, y, z, w). */
static inline void random_quat(float *q, check_rng *r)
{
    double v[4], n2 = 0.0;
    int i;
    do {
        n2 = 0.0;
        for (i = 0; i < 4; i++) {
            v[i] = 2.0 * rng_unit(r) - 1.0;
            n2 += v[i] * v[i];
        }
    } while (n2 < 1e-3 || n2 > 1.0);
    for (i = 0; i < 4; i++) q[i] = (float)(v[i] / sqrt(n2));
}

/* The special values every check sprinkles into some inputs. */
static const float check_specials[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-40f, -1e-40f, 1e-30f, 1e30f,
                                       3.4e38f, -3.4e38f, INFINITY, -INFINITY, NAN, -NAN, 0.5f,
                                       1e-7f};
#define CHECK_SPECIALS (sizeof check_specials / sizeof check_specials[0])

/* Replaces each element with a special value with probability p. */
static inline void sprinkle_specials(float *x, size_t n, double p, check_rng *r)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (rng_unit(r) < p) x[i] = check_specials[rng_below(r, CHECK_SPECIALS)];
}

static inline int check_same_float(float a, float b)
{
    uint32_t ua, ub;
    if (a != a && b != b) return 1;
    memcpy(&ua, &a, 4);
    memcpy(&ub, &b, 4);
    return ua == ub;
}

/* Compares n floats; prints the first mismatch under `what` and returns 1 on any difference. */
static inline int check_same(const char *what, const char *isa, const float *got,
                             const float *want, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (!check_same_float(got[i], want[i])) {
            printf("MISMATCH %s [%s] at %zu of %zu: %.9g (0x%08x) != scalar %.9g\n", what, isa, i,
                   n, (double)got[i], (unsigned)(*(const uint32_t *)(const void *)&got[i]),
                   (double)want[i]);
            return 1;
        }
    }
    return 0;
}

static inline int check_same_double(const char *what, const char *isa, const double *got,
                                    const double *want, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (!(got[i] == want[i] || (got[i] != got[i] && want[i] != want[i]))) {
            printf("MISMATCH %s [%s] at %zu of %zu: %.17g != scalar %.17g\n", what, isa, i, n,
                   got[i], want[i]);
            return 1;
        }
    }
    return 0;
}

static inline void *check_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* A random valid hierarchy of n joints (parents[j] < j, several roots). */
static inline void random_parents(int32_t *parents, size_t n, check_rng *r)
{
    size_t j;
    for (j = 0; j < n; j++) {
        const double u = rng_unit(r);
        if (j == 0 || u < 0.08) parents[j] = -1;
        else if (u < 0.6) parents[j] = (int32_t)(j - 1);   /* chains: register forwarding */
        else parents[j] = (int32_t)rng_below(r, j);
    }
}

/* Random QTS joints: unit quaternions, t in [-2, 2], s in [0.5, 2]; with `specials`, a share of
 * joints gets a zero, tiny or huge quaternion, a zero, tiny or huge scale, a huge translation
 * or special values (NaN, inf, denormals, ...). */
static inline void check_qts_joints(float *x, size_t n, check_rng *r, int specials)
{
    size_t i;
    int c;
    for (i = 0; i < n; i++) {
        float *j = x + 8 * i;
        random_quat(j, r);
        fill_uniform(j + 4, 3, -2.0f, 2.0f, r);
        j[7] = rng_uniform(r, 0.5f, 2.0f);
        if (!specials) continue;
        switch (rng_below(r, 14)) {
        case 0: memset(j, 0, 4 * sizeof(float)); break;
        case 1: for (c = 0; c < 4; c++) j[c] *= 1e-20f; break;
        case 2: for (c = 0; c < 4; c++) j[c] *= 1e20f; break;
        case 3: j[7] = 0.0f; break;
        case 4: j[7] = 1e-30f; break;
        case 5: j[7] = 1e25f; break;
        case 6: for (c = 4; c < 7; c++) j[c] *= 1e6f; break;
        case 7: sprinkle_specials(j, 8, 0.3, r); break;
        case 8: j[0] = j[1] = j[2] = 0.0f; j[3] = -1.0f; break;
        default: break;
        }
    }
}

/* Hierarchy kinds: random (chains and branches, several roots), one chain, a star, all roots. */
static inline void check_parents_of_kind(int32_t *parents, size_t n, int kind, check_rng *r)
{
    size_t j;
    switch (kind) {
    case 0: random_parents(parents, n, r); break;
    case 1: for (j = 0; j < n; j++) parents[j] = (int32_t)j - 1; break;
    case 2: for (j = 0; j < n; j++) parents[j] = j ? 0 : -1; break;
    default: for (j = 0; j < n; j++) parents[j] = -1; break;
    }
}

#endif /* SKS_CHECK_H */
