/*
 * surface.h -- the spring-grid surface family (Fomitchev, "2D Surface Deformation").
 *
 * A surface is a rows x cols grid of particles. Vertex (r, c) owns up to three springs: east to
 * (r, c+1), south to (r+1, c) and south-east to (r+1, c+1) (the 6-neighbour triangulated grid).
 * On a cylinder the columns wrap: the east and south-east springs of the last column reach
 * column 0. A plane has 3rc - 2r - 2c + 1 springs, a cylinder 3rc - 2c.
 *
 * State is structure-of-arrays: every quantity is a plane of rows*cols floats (row-major), and
 * consecutive planes of one buffer are `plane` floats apart (plane >= rows*cols; the padding
 * keeps the planes off the same L1 sets, see skelsimd/surface.py). Components x, y, z are three
 * consecutive planes.
 *
 * The step and normals work in whole vectors and read (never write) up to 8 floats past the
 * end of the position and rest planes: every such plane must be followed by 8 readable floats
 * (in the glue's buffer it is followed by another plane).
 *
 * Every variant of every kernel in this family evaluates the same float32 operations in the
 * same order (no FMA), so all variants give bit-identical results (the effector reactions, summed
 * in float64 in each target's own order, may differ in the last float64 bits and in the sign of
 * a zero sum; they are rounded to float32 on output).
 */
#ifndef SKS_SURFACE_H
#define SKS_SURFACE_H

#include "simd.h"

enum sks_surface_model {
    SKS_SURFACE_OFFSET = 0,   /* F = E * ((S_n - S) - rest), rest a captured vector */
    SKS_SURFACE_LENGTH = 1    /* F = E * (|d| - L0) * d / |d|, d = S_n - S, L0 a captured length */
};

typedef struct sks_surface {
    size_t rows, cols;
    size_t plane;                  /* floats between consecutive planes */
    int wrap;                      /* 1: cylinder (columns wrap), 0: plane */
    int model;                     /* enum sks_surface_model */
    float *pos;                    /* 3 planes: x, y, z */
    float *vel;                    /* 3 planes */
    float *ext;                    /* 3 planes: external force for the next substep */
    const unsigned char *pinned;   /* rows*cols bytes, nonzero = pinned (never moves) */
    /* Rest state of the spring owned by each vertex, captured from the relaxed positions.
     * offset model: 9 planes, (E x, E y, E z, S x, S y, S z, SE x, SE y, SE z);
     * length model: 3 planes, (E, S, SE) rest lengths.
     * rest_step 1: one value per vertex; 0: uniform, the first 8 floats of each plane hold the
     * value (every vertex reads index 0..7). */
    const float *rest;
    size_t rest_step;
    const float *inv_mass;         /* 1 / mass per vertex; mass_step 0 or 1 as for rest */
    size_t mass_step;
} sks_surface;

typedef struct sks_surface_params {
    float elasticity;              /* E >= 0 */
    float damping;                 /* d in [0, 1], applied to the velocity after each substep */
    float dt;
    float gravity[3];              /* acceleration of every unpinned vertex */
    size_t substeps;
    int has_ext;                   /* read (and clear) ext during the first substep */
} sks_surface_params;

/* Substeps a step keeps in flight (a wavefront over the rows, see surface.c). */
#define SKS_SURFACE_WAVE 8

/* Floats between the components of a row buffer of the scratch: room for elements [0] ..
 * [cols + 15] after a 7-float lead (a row's buffers may start up to 7 floats in, and a vector
 * at the end of a row may spill 7 lanes), in an odd number of cache lines, so that the
 * components of all buffers fall on different L1 sets (a stride of a multiple of 4 KiB, e.g.
 * 1024 floats for 1000 columns, put them all on one set and made the 1000 x 1000 step 2x
 * slower). */
static inline size_t sks_surface_row_stride(size_t cols)
{
    const size_t lines = (cols + 23 + 15) / 16;
    return 16 * (lines | 1);
}

/* Scratch floats a step or a normals call needs for a grid with `cols` columns: the step's E
 * buffer, and S and SE row buffers (current and previous row) for each of the
 * SKS_SURFACE_WAVE substeps in flight (normals use 4 face buffers); 3 components each, plus
 * the alignment slack. */
static inline size_t sks_surface_scratch_floats(size_t cols)
{
    return (1 + 4 * SKS_SURFACE_WAVE) * 3 * sks_surface_row_stride(cols) + 16;
}

typedef struct sks_surface_kernels {
    /* `substeps` times, for every vertex (internal force F from its up to six springs, each
     * spring's force added to its owner and subtracted from the other end):
     *   a = (F + ext) / m + g        (ext only in the first substep, then ext := 0)
     *   v' = v + a dt;  s' = s + v' dt;  v'' = d v'     (symplectic Euler, then damping)
     * Pinned vertices keep s and v bitwise. `scratch` holds sks_surface_scratch_floats(cols). */
    void (*step)(const sks_surface *s, const sks_surface_params *p, float *scratch);
    /* Unit area-weighted vertex normals: out (3 planes, out_plane apart) = normalize(sum of the
     * cross products (2 x area x unit normal) of the up to six triangles around the vertex).
     * Triangles of quad (r, c): (P, E, SE) and (P, SE, S); a flat grid with rows along +z and
     * columns along +x has normals +y. A vertex whose triangles all have zero area gets (0,0,0). */
    void (*normals)(float *out, size_t out_plane, const float *pos, size_t plane, size_t rows,
                    size_t cols, int wrap, float *scratch);
    /* For each effector k < count, in order, and each vertex i < n with 0 < |C_k - S_i| < R_k:
     *   F = (strength_k / |C_k - S_i|) * (C_k - S_i);  ext_i += F;  reaction_k -= F
     * centers: count x 3 floats; reaction: count x 3 doubles, overwritten. */
    void (*effectors)(float *ext, double *reaction, const float *pos, size_t plane, size_t n,
                      const float *centers, const float *radius, const float *strength,
                      size_t count);
    /* One band of a divided step: rows [b0, b1) advance substeps done..done+depth-1 in place,
     * rows [lo, b0) and [b1, hi) are recomputed from the private copies top and bottom (see
     * surface.c; surface_bands.c prepares them). `scratch` as for step. */
    void (*step_band)(const sks_surface *s, const sks_surface_params *p, size_t done,
                      size_t depth, size_t lo, size_t b0, size_t b1, size_t hi,
                      const sks_surface *top, const sks_surface *bottom, float *scratch);
} sks_surface_kernels;

/* One row per enum sks_isa (dispatch.c); the rows are defined in surface.c, once per target. */
extern const sks_surface_kernels *const sks_surface_variants[SKS_ISA_COUNT];

#endif /* SKS_SURFACE_H */
