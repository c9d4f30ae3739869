/*
 * mm.h -- motion matching: an exact nearest-neighbour search over a database of feature rows,
 * pruned by two levels of axis-aligned bounding boxes (the scheme of Daniel Holden's
 * Motion-Matching reference implementation: large boxes of 64 rows, small boxes of 16).
 *
 * The database layout (built by skelsimd/motion_matching.py; D = dim features per row):
 *   rows       float32 [nblocks][D][16]: block b holds rows 16 b .. 16 b + 15, dimension by
 *              dimension, one row per lane; rows >= n are padding (NaN: never candidates)
 *   small_lo, small_hi   float32 [nlarge][D][4]: per dimension, the minimum and maximum over
 *              the valid rows of the 4 small boxes (blocks 4 L .. 4 L + 3) of large box L
 *              (+inf and -inf for a box without valid rows)
 *   large_lo, large_hi   float32 [ngroups][D][16]: the same over the 64 rows of each large box,
 *              16 large boxes per group (+inf and -inf for boxes past the last)
 *   nblocks = 4 nlarge, nlarge = ceil(n / 64), ngroups = ceil(nlarge / 16), n >= 1, D >= 1.
 */
#ifndef SKS_MM_H
#define SKS_MM_H

#include "simd.h"

typedef struct sks_mm_db {
    const float *rows, *small_lo, *small_hi, *large_lo, *large_hi;
    size_t n, dim, nlarge;
} sks_mm_db;

typedef struct sks_mm_kernels {
    /* For every query k < nq (queries + k dim, finite, |x| <= 1e15): index[k] = the row r < n,
     * outside the row ranges [ranges[2 i], ranges[2 i + 1]) for offsets[k] <= i < offsets[k + 1],
     * with the least float64 cost sum_d ((double)q_d - (double)f_rd)^2 (added in dimension
     * order), the least such r on ties; cost[k] that cost. index[k] = -1 and cost[k] = +inf when
     * every row is excluded. prune = 0 scans every block (the brute-force scan): the same
     * answer. offsets NULL: no ranges. */
    void (*search)(const sks_mm_db *db, const float *queries, size_t nq, const int64_t *ranges,
                   const int64_t *offsets, int prune, int64_t *index, double *cost);
} sks_mm_kernels;

/* Indexed by enum sks_isa: each target's row (mm.c compiled once per target; dispatch.c). */
extern const sks_mm_kernels *const sks_mm_variants[SKS_ISA_COUNT];

#endif /* SKS_MM_H */
