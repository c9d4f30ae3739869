/*
 * surface_bands.c -- a spring-grid step divided over the thread pool (see surface_bands.h and
 * surface_step_band in surface.c).
 *
 * Working memory, from a 64-byte boundary: the band descriptors, one step scratch per slot, then
 * per band its two private halo grids (top: rows lo..b0, bottom: rows b1-1..hi-1), each of
 * HALO_PLANES planes (pos 3, vel 3, ext 3, rest 9 or 3) of `halo_plane` floats.
 */
#include "surface_bands.h"

#include <stdint.h>
#include <string.h>

enum { H_POS = 0, H_VEL = 3, H_EXT = 6, H_REST = 9 };

typedef struct band {
    size_t lo, hi;
    int has_top, has_bottom;
    sks_surface top, bottom;
} band;

typedef struct layout {
    size_t halo, halo_plane, planes, side_floats, scratch_floats, head_floats;
} layout;

static size_t round16(size_t n) { return (n + 15) & ~(size_t)15; }

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

static layout layout_of(const sks_surface *s, size_t substeps, const sks_pool_plan *plan)
{
    layout l;
    l.halo = min_size(substeps, SKS_SURFACE_WAVE);
    /* rows of a halo grid: halo + 1; then 16 readable floats (the blocks read past a row) */
    l.halo_plane = round16((l.halo + 1) * s->cols + 16);
    l.planes = H_REST + (s->model == SKS_SURFACE_LENGTH ? 3 : 9);
    l.side_floats = l.planes * l.halo_plane + 16;   /* + the shift matching the grid's rows */
    l.scratch_floats = round16(sks_surface_scratch_floats(s->cols));
    l.head_floats = round16((plan->chunks * sizeof(band) + sizeof(float) - 1) / sizeof(float));
    return l;
}

sks_pool_plan sks_surface_band_plan(size_t rows, size_t cols, size_t substeps,
                                    double ns_per_vertex)
{
    const size_t depth = min_size(substeps, SKS_SURFACE_WAVE);
    sks_pool_plan plan = sks_pool_plan_for(rows, 8, ns_per_vertex * (double)cols * (double)depth);
    if (plan.chunks > 1) {
        /* SKS_SURFACE_BANDS_PER_SLOT bands per thread while they keep >= 16 * depth rows each
         * (about depth^2 rows recomputed around a band then cost under 6% of its own, 3% at
         * 1000 x 1000 on 2 threads), else as many as keep that width, at least one per
         * thread */
        const size_t wide = rows / (16 * depth);
        const size_t most = plan.slots * SKS_SURFACE_BANDS_PER_SLOT;
        const size_t bands = wide >= most ? most : wide > plan.slots ? wide : plan.slots;
        const size_t per = ((rows + bands - 1) / bands + 7) & ~(size_t)7;
        plan.chunk_units = per;
        plan.chunks = (rows + per - 1) / per;
        if (plan.chunks < 2) {
            plan.chunks = 1;
            plan.chunk_units = rows;
            plan.slots = 1;
        } else if (plan.slots > plan.chunks) {
            plan.slots = plan.chunks;
        }
    }
    return plan;
}

size_t sks_surface_divided_floats(const sks_surface *s, size_t substeps,
                                  const sks_pool_plan *plan)
{
    const layout l = layout_of(s, substeps, plan);
    return 16 + l.head_floats + plan->slots * l.scratch_floats + plan->chunks * 2 * l.side_floats;
}

/* The halo grid of rows [first, first + count) at `mem`: pointers offset so that the grid's
 * row numbers index it, rows on the same offset against 64 bytes as the grid's rows, the rest
 * (constant during the call) copied. The rows themselves are written before they are read (the
 * snapshots, the band's row copies); the floats after them in each plane, which the vector
 * blocks read past a row and discard, are set to zero. */
static sks_surface halo_grid(const sks_surface *s, const layout *l, float *mem, size_t first,
                             size_t count)
{
    const size_t cols = s->cols, rest_planes = l->planes - H_REST;
    const size_t shift = (size_t)(((uintptr_t)(s->pos + first * cols) / sizeof(float)) & 15);
    float *base = mem + shift;
    const uintptr_t back = (uintptr_t)(first * cols * sizeof(float));
    sks_surface h = *s;
    size_t c;
    for (c = 0; c < l->planes; c++)
        memset(base + c * l->halo_plane + count * cols, 0,
               (l->halo_plane - count * cols) * sizeof(float));
    h.plane = l->halo_plane;
    h.pos = (float *)((uintptr_t)(base + H_POS * h.plane) - back);
    h.vel = (float *)((uintptr_t)(base + H_VEL * h.plane) - back);
    h.ext = (float *)((uintptr_t)(base + H_EXT * h.plane) - back);
    for (c = 0; c < rest_planes; c++) {
        float *to = base + (H_REST + c) * h.plane;
        if (s->rest_step)
            memcpy(to, s->rest + c * s->plane + first * cols, count * cols * sizeof(float));
        else
            memcpy(to, s->rest + c * s->plane, 8 * sizeof(float));
    }
    h.rest = s->rest_step ? (const float *)((uintptr_t)(base + H_REST * h.plane) - back)
                          : base + H_REST * h.plane;
    return h;
}

/* Copies rows [r0, r1) of pos and vel (and ext when `ext`) from the grid into halo grid h. */
static void snapshot(sks_surface *h, const sks_surface *s, size_t r0, size_t r1, int ext)
{
    const size_t cols = s->cols, n = (r1 - r0) * cols * sizeof(float);
    size_t c;
    for (c = 0; c < 3; c++) {
        memcpy(h->pos + c * h->plane + r0 * cols, s->pos + c * s->plane + r0 * cols, n);
        memcpy(h->vel + c * h->plane + r0 * cols, s->vel + c * s->plane + r0 * cols, n);
        if (ext) memcpy(h->ext + c * h->plane + r0 * cols, s->ext + c * s->plane + r0 * cols, n);
    }
}

typedef struct job {
    const sks_surface_kernels *k;
    const sks_surface *s;
    const sks_surface_params *p;
    const band *bands;
    float *scratch;
    size_t scratch_floats, chunk_units, done, depth;
} job;

static void band_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const job *j = (const job *)ctx;
    const band *b = j->bands + begin / j->chunk_units;
    j->k->step_band(j->s, j->p, j->done, j->depth, b->lo, begin, end, b->hi,
                    b->has_top ? &b->top : NULL, b->has_bottom ? &b->bottom : NULL,
                    j->scratch + slot * j->scratch_floats);
}

void sks_surface_step_divided(const sks_surface_kernels *k, const sks_surface *s,
                              const sks_surface_params *p, const sks_pool_plan *plan,
                              float *mem)
{
    const layout l = layout_of(s, p->substeps, plan);
    float *aligned = (float *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
    band *bands = (band *)aligned;
    float *sides = aligned + l.head_floats + plan->slots * l.scratch_floats;
    job j;
    size_t c;
    for (c = 0; c < plan->chunks; c++) {
        band *b = bands + c;
        const size_t b0 = c * plan->chunk_units, b1 = min_size(b0 + plan->chunk_units, s->rows);
        b->lo = b0 > l.halo ? b0 - l.halo : 0;
        b->hi = min_size(b1 + l.halo, s->rows);
        b->has_top = b->lo < b0;
        b->has_bottom = b->hi > b1;
        if (b->has_top)
            b->top = halo_grid(s, &l, sides + 2 * c * l.side_floats, b->lo, b0 + 1 - b->lo);
        if (b->has_bottom)
            b->bottom = halo_grid(s, &l, sides + (2 * c + 1) * l.side_floats, b1 - 1,
                                  b->hi - (b1 - 1));
    }
    j.k = k;
    j.s = s;
    j.p = p;
    j.bands = bands;
    j.scratch = aligned + l.head_floats;
    j.scratch_floats = l.scratch_floats;
    j.chunk_units = plan->chunk_units;
    for (j.done = 0; j.done < p->substeps; j.done += j.depth) {
        j.depth = min_size(p->substeps - j.done, SKS_SURFACE_WAVE);
        for (c = 0; c < plan->chunks; c++) {
            band *b = bands + c;
            const size_t b0 = c * plan->chunk_units;
            const size_t b1 = min_size(b0 + plan->chunk_units, s->rows);
            const int ext = p->has_ext && j.done == 0;
            if (b->has_top) snapshot(&b->top, s, b->lo, b0, ext);
            if (b->has_bottom) snapshot(&b->bottom, s, b1, b->hi, ext);
        }
        sks_pool_run(plan, band_chunk, &j);
    }
}
