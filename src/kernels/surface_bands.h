/*
 * surface_bands.h -- a spring-grid step divided over the thread pool (pool.h); in
 * surface_bands.c, plain C compiled once, calling a target's step_band (surface.h).
 *
 * The grid is cut into bands of whole rows, one pool chunk each. Every group of up to
 * SKS_SURFACE_WAVE substeps is one pool run (its join is the barrier between groups): each
 * band advances its rows through the group in place with the wavefront of the plain step, and
 * recomputes the up to `depth` rows on either side of it (the other bands' rows, which it needs)
 * from a private copy taken before the run. So no band reads a row another band writes, and
 * every vertex gets the bits of a plain step, whatever the band boundaries and thread count.
 */
#ifndef SKS_SURFACE_BANDS_H
#define SKS_SURFACE_BANDS_H

#include "pool.h"
#include "surface.h"

/* Bands per thread (one when they would be narrower than 16 x depth rows): more bands
 * even out a thread slowed down by the machine's other work, and each band recomputes about
 * depth^2 row-substeps of its neighbours (2 x 28 of 8 x 250 at 1000 x 1000 with 2 threads:
 * 3%), and copies 2 x depth rows of their state before each group. */
#define SKS_SURFACE_BANDS_PER_SLOT 2

/* The plan of a step over `rows` rows of `cols` columns with `substeps` substeps, each
 * vertex-substep estimated at ns_per_vertex nanoseconds: units are rows, one pool run per group
 * of substeps, so the estimate is of one group. plan.chunks == 1: run the plain step. */
sks_pool_plan sks_surface_band_plan(size_t rows, size_t cols, size_t substeps,
                                    double ns_per_vertex);

/* Floats of working memory sks_surface_step_divided needs (any float alignment). */
size_t sks_surface_divided_floats(const sks_surface *s, size_t substeps,
                                  const sks_pool_plan *plan);

/* k->step(s, p, ...) divided by `plan` (plan.chunks > 1), bit for bit the same result. */
void sks_surface_step_divided(const sks_surface_kernels *k, const sks_surface *s,
                              const sks_surface_params *p, const sks_pool_plan *plan,
                              float *mem);

#endif /* SKS_SURFACE_BANDS_H */
