/*
 * surface.c -- spring-grid surface kernels: step, normals, effectors, each as a scalar, an
 * SSE4.1 and an AVX2 variant (see surface.h for layouts).
 *
 * The step is one pass over the grid per substep, row by row. Row r computes the springs it
 * owns (east, south, south-east), keeps the south and south-east forces of the previous row in
 * two row buffers (scratch), and then integrates row r at once: the springs of later rows never
 * read row r again, so no second pass over the grid and no force planes are needed. The east
 * and south-east springs of the last column of a cylinder reach column 0, so they are computed
 * when the row starts, before column 0 moves.
 *
 * Bit-identical variants: the internal force of every vertex is summed in one order,
 *     F = ((((F_E + F_S) + F_SE) - F_W) - F_N) - F_NW
 * where F_E, F_S, F_SE are the springs the vertex owns and F_W, F_N, F_NW the springs owned by
 * its west, north and north-west neighbours (a spring that does not exist contributes +0), and
 * every spring, acceleration and update uses the same operations in every variant (no FMA).
 *
 * Speed (AVX2, offset model, ns per vertex per substep, through Surface.step on the 2-core Zen 4
 * of issue 4; timings on this shared machine vary by ~5%).
 * Before branch speed-surf2: 100 x 100 2.31-2.39, 100 x 104 1.74-1.85, 100 x 96 1.72-1.86,
 * 100 x 97 2.57, 4 x 104 1.73, 100 x 1000 2.02. Widths that are multiples of 8 were about 25%
 * faster: every row then starts on a 32-byte boundary and needs no partial block, while with
 * 100 columns the rows start 16 bytes off in turn (every other 32-byte access of those rows
 * spans two cache lines) and every row ended in a block of masked loads and stores (the 100 x
 * 104 job with all planes moved by 8 or 16 bytes: 2.06 and 2.03; by 32 bytes: 1.71). 4 x 104
 * (32 KB of state) runs as fast as 100 x 104 (800 KB): at this size the step is bound by the
 * core, not by memory traffic (the traffic row of the benchmark, a copy of positions and
 * velocities per substep, takes 0.5 ns per vertex).
 * Branch speed-surf2: each row's blocks start at its first 32-byte position boundary
 * (row_ctx.lead; the row buffers move with the row), with one unaligned block at column 0 and
 * one ending at the last column, computed before and stored after the aligned ones (no masked
 * loads or stores from 8 columns on). Measured side by side with the old build, one run each:
 * 100 x 100 2.37 -> 2.08, 100 x 97 2.57 -> 2.23, 100 x 99 2.53 -> 2.23, 100 x 101 2.47 -> 2.23,
 * 100 x 104 1.85 -> 1.89, 100 x 96 1.83 -> 1.90 (the multiples of 8 take the same path as before
 * and are within noise); `python -m skelsimd bench --family surface`: water 2.37 -> 2.14,
 * water-length 2.68 -> 2.48. 100 x 100 stays ~0.2 ns above 100 x 104: with 100 columns the
 * south neighbours (i + cols) and the row above's south springs are still 16 bytes off.
 * Tried without a gain in the extension build: one pass per row with the west springs taken
 * from the east springs by a lane rotation (branch speed-surf, and again on speed-surf2 with
 * only the south springs in row buffers and the aligned blocks: 100 x 100 2.17-2.28, 100 x 104
 * 2.0-2.1, slower than two passes; specialising it on the model and the last row made it
 * slower still, 2.45 / 2.26); chunks computed component by component with the row above's
 * springs in one aligned in-place buffer; plain stores instead of vmaskmovps at the end of a
 * row (9% faster in a C harness built without -fPIC -fwrapv, within noise in the extension);
 * wavefront depths below 8 (no change at 100 x 100, slower at 1000 x 1000). Zeroing the
 * deferred head/tail blocks' registers at the top of a row (memset, to silence an
 * uninitialised-use analysis) cost 0.15 ns per vertex: they are guarded by flags instead.
 * The 1.5 ns at 100 x 100 is not reached: even the aligned widths take 1.8-1.9 ns, with
 * ~47 vector loads and ~15 stores per 8 vertices in the two passes.
 *
 * Seed defects fixed here (seed 001, Listing 1): the seed multiplies the force by the mass
 * (a = F * m dt); here a = (F + F_ext) / m. The seed integrates only vertices whose Fixed flag
 * is set; here pinned vertices are the ones that never move. The seed's normal is a copy of the
 * velocity (zero at rest); here normals are area-weighted triangle normals.
 */
#include "surface.h"

#include <math.h>

/* Floats between the components of a row buffer: room for elements [0] .. [cols + 15] after a
 * 7-float lead (a row's buffers may start up to 7 floats in, see row_begin, and a SIMD chunk at
 * the end of a row may spill 7 lanes), in an odd number of cache lines, so that the components of all buffers fall on different L1 sets (a stride of a
 * multiple of 4 KiB, e.g. 1024 floats for 1000 columns, put them all on one set and made the
 * 1000 x 1000 step 2x slower). */
static inline size_t row_stride(size_t cols)
{
    const size_t lines = (cols + 23 + 15) / 16;
    return 16 * (lines | 1);
}

size_t sks_surface_scratch_floats(size_t cols)
{
    /* step: the E buffer, and S and SE row buffers (current and previous row) for each of the
     * SKS_SURFACE_WAVE substeps in flight; normals: 4 face buffers; 3 components each, plus the
     * alignment slack. */
    return (1 + 4 * SKS_SURFACE_WAVE) * 3 * row_stride(cols) + 16;
}

/* Row buffers of the scratch: `which` < 1 + 4 * SKS_SURFACE_WAVE, 3 components each,
 * row_stride(cols) floats apart. Element [1] of every component is 32-byte aligned, and
 * elements up to [cols + 15] exist (row_begin moves a row's buffers by up to 7 floats). */
static inline float *row_buffer(float *scratch, size_t cols, size_t which)
{
    float *aligned = (float *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    return aligned + which * 3 * row_stride(cols) + 7;
}

/* ------------------------------------------------------------------------------------------
 * Scalar building blocks (the portable reference; also the tails of the SIMD loops)
 * ------------------------------------------------------------------------------------------ */

typedef struct vec3f {
    float x, y, z;
} vec3f;

static const vec3f vec3f_zero = {0.0f, 0.0f, 0.0f};

static inline vec3f load3(const float *p, size_t plane, size_t i)
{
    vec3f v = {p[i], p[i + plane], p[i + 2 * plane]};
    return v;
}

static inline void store3(float *p, size_t plane, size_t i, vec3f v)
{
    p[i] = v.x;
    p[i + plane] = v.y;
    p[i + 2 * plane] = v.z;
}

static inline vec3f sub3(vec3f a, vec3f b)
{
    vec3f r = {a.x - b.x, a.y - b.y, a.z - b.z};
    return r;
}

static inline vec3f add3(vec3f a, vec3f b)
{
    vec3f r = {a.x + b.x, a.y + b.y, a.z + b.z};
    return r;
}

static inline vec3f scale3(vec3f a, float k)
{
    vec3f r = {a.x * k, a.y * k, a.z * k};
    return r;
}

/* (a x b), lane x = a.y*b.z - a.z*b.y */
static inline vec3f cross3(vec3f a, vec3f b)
{
    vec3f r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
    return r;
}

/* |d| as sqrt((x*x + y*y) + z*z) */
static inline float norm3(vec3f d)
{
    return sqrtf((d.x * d.x + d.y * d.y) + d.z * d.z);
}

/* The force on the owner of spring `kind` (0 E, 1 S, 2 SE) of vertex i, d = S_n - S.
 * offset: E * (d - rest);  length: (E * (|d| - L0)) / |d| * d, zero when |d| == 0. */
static inline vec3f spring_scalar(const sks_surface *s, float E, int kind, size_t i, vec3f d)
{
    const size_t ri = i * s->rest_step;
    if (s->model == SKS_SURFACE_LENGTH) {
        const float len = norm3(d);
        const float L0 = s->rest[(size_t)kind * s->plane + ri];
        const float c = len > 0.0f ? (E * (len - L0)) / len : 0.0f;
        return scale3(d, c);
    }
    return scale3(sub3(d, load3(s->rest + (size_t)kind * 3 * s->plane, s->plane, ri)), E);
}

/* Spring of vertex i towards vertex n, or zero when that neighbour does not exist. */
static inline vec3f spring_to(const sks_surface *s, float E, int kind, size_t i, size_t n,
                              int exists)
{
    if (!exists) return vec3f_zero;
    const vec3f d = sub3(load3(s->pos, s->plane, n), load3(s->pos, s->plane, i));
    return spring_scalar(s, E, kind, i, d);
}

/* The internal force sum in the fixed order shared by every variant. */
static inline vec3f total_force(vec3f fe, vec3f fs, vec3f fse, vec3f fw, vec3f fn, vec3f fnw)
{
    return sub3(sub3(sub3(add3(add3(fe, fs), fse), fw), fn), fnw);
}

/* a = (F + ext) * (1/m) + g; v' = v + a dt; s' = s + v' dt; v'' = d v'. ext is cleared when
 * used; a pinned vertex keeps s and v. */
static inline void integrate_scalar(const sks_surface *s, const sks_surface_params *p, size_t i,
                                    vec3f f, int use_ext)
{
    const float im = s->inv_mass[i * s->mass_step];
    vec3f a, v, x;
    if (use_ext) {
        f = add3(f, load3(s->ext, s->plane, i));
        store3(s->ext, s->plane, i, vec3f_zero);
    }
    if (s->pinned[i]) return;
    a.x = f.x * im + p->gravity[0];
    a.y = f.y * im + p->gravity[1];
    a.z = f.z * im + p->gravity[2];
    v = add3(load3(s->vel, s->plane, i), scale3(a, p->dt));
    x = add3(load3(s->pos, s->plane, i), scale3(v, p->dt));
    store3(s->pos, s->plane, i, x);
    store3(s->vel, s->plane, i, scale3(v, p->damping));
}

/* Row state shared by the variants: the springs of the last column (computed before column 0
 * moves), and the row buffers (3 components each, row_stride(cols) floats apart):
 *   E[c][j + 1]  east spring of column j;  E[c][0] the one reaching column 0 (or zero),
 *   S[c][j + 1]  south spring of column j (current row; S_prev: the row above),
 *   SE[c][j + 1] south-east spring of column j;  SE[c][0] the one reaching column 0 (or zero).
 * `lead` is the first column whose position is on a `block`-float boundary (row_begin's block:
 * 8 for AVX2, 1 elsewhere); the row's buffers start (block - lead) % block floats into the
 * scratch buffers, so that E[j + 1], S_cur[j + 1], SE_cur[j + 1] are on a block boundary
 * whenever position j is (S_prev, SE_prev keep the row above's start). */
typedef struct row_ctx {
    size_t r;
    size_t lead;
    int has_south;
    vec3f e_last, se_last;          /* springs of column cols-1 (zero on a plane) */
    float *E, *S_cur, *SE_cur;
    const float *S_prev, *SE_prev;
} row_ctx;

/* Columns from the start of a row at `row` to the first position on a `block`-float boundary
 * (block a power of two; positions are float-aligned). */
static inline size_t lead_columns(const float *row, size_t block)
{
    const size_t misalign = (size_t)((uintptr_t)row / sizeof(float)) & (block - 1);
    return (block - misalign) & (block - 1);
}

static inline row_ctx row_begin(const sks_surface *s, float E, size_t r, float *scratch,
                                size_t level, size_t block)
{
    const size_t parity = r & 1, first = 1 + 4 * level;   /* buffer 0 is E, shared */
    const size_t cols = s->cols, last = r * cols + cols - 1;
    /* buffers start (block - lead) % block = misalignment of the row floats in */
    const size_t shift = (size_t)((uintptr_t)(s->pos + r * cols) / sizeof(float)) & (block - 1);
    const size_t shift_prev =
        r > 0 ? (size_t)((uintptr_t)(s->pos + (r - 1) * cols) / sizeof(float)) & (block - 1) : 0;
    row_ctx rc;
    rc.r = r;
    rc.lead = lead_columns(s->pos + r * cols, block);
    rc.has_south = r + 1 < s->rows;
    rc.e_last = spring_to(s, E, 0, last, r * cols, s->wrap);
    rc.se_last = spring_to(s, E, 2, last, (r + 1) * cols, s->wrap && rc.has_south);
    rc.S_cur = row_buffer(scratch, cols, first + parity) + shift;
    rc.SE_cur = row_buffer(scratch, cols, first + 2 + parity) + shift;
    rc.S_prev = row_buffer(scratch, cols, first + 1 - parity) + shift_prev;
    rc.SE_prev = row_buffer(scratch, cols, first + 3 - parity) + shift_prev;
    rc.E = row_buffer(scratch, cols, 0) + shift;
    store3(rc.E, row_stride(cols), 0, rc.e_last);
    store3(rc.SE_cur, row_stride(cols), 0, rc.se_last);
    return rc;
}

/* Pass 1, columns j0..cols-1: the springs row rc.r owns, into the row buffers. */
static inline void row_springs_tail_scalar(const sks_surface *s, float E, const row_ctx *rc,
                                           size_t j0)
{
    const size_t cols = s->cols, stride = row_stride(cols);
    size_t j;
    for (j = j0; j < cols; j++) {
        const size_t i = rc->r * cols + j;
        const int inner = j + 1 < cols;
        store3(rc->E, stride, j + 1, inner ? spring_to(s, E, 0, i, i + 1, 1) : rc->e_last);
        store3(rc->S_cur, stride, j + 1, spring_to(s, E, 1, i, i + cols, rc->has_south));
        store3(rc->SE_cur, stride, j + 1,
               inner ? spring_to(s, E, 2, i, i + cols + 1, rc->has_south) : rc->se_last);
    }
}

/* Pass 2, columns j0..cols-1: total force from the row buffers, then integration. */
static inline void row_integrate_tail_scalar(const sks_surface *s, const sks_surface_params *p,
                                             const row_ctx *rc, size_t j0, int use_ext)
{
    const size_t cols = s->cols, stride = row_stride(cols);
    size_t j;
    for (j = j0; j < cols; j++) {
        const vec3f f = total_force(
            load3(rc->E, stride, j + 1), load3(rc->S_cur, stride, j + 1),
            load3(rc->SE_cur, stride, j + 1), load3(rc->E, stride, j),
            load3(rc->S_prev, stride, j + 1), load3(rc->SE_prev, stride, j));
        integrate_scalar(s, p, rc->r * cols + j, f, use_ext);
    }
}

/* Zeroes the first `count` buffers (the row above row 0 owns no springs). */
static void clear_row_buffers(float *scratch, size_t cols, size_t count)
{
    memset(row_buffer(scratch, cols, 0) - 7, 0, count * 3 * row_stride(cols) * sizeof(float));
}

typedef void (*row_springs_fn)(const sks_surface *s, float E, const row_ctx *rc);
typedef void (*row_integrate_fn)(const sks_surface *s, const sks_surface_params *p,
                                 const row_ctx *rc, int use_ext);

/* The step walk shared by the variants, with their row functions (pass 1: springs, pass 2:
 * integration). Substeps run as a wavefront, up to SKS_SURFACE_WAVE at a time: at wave t,
 * substep k advances row t - k. That row's springs need rows r and r+1 after substep k - 1
 * (row r+1 got there earlier in the same wave, and moves on only at wave t + 1) and the south
 * springs of row r-1 in substep k (wave t - 1). So every vertex sees exactly the inputs of the
 * plain substep-by-substep order (the results are identical) while a large grid streams from
 * memory once per SKS_SURFACE_WAVE substeps instead of once per substep (measured: 2x faster
 * at 1000 x 1000, the same at 100 x 100, whose state stays in L2 anyway). */
static inline void step_walk(const sks_surface *s_in, const sks_surface_params *p_in,
                             float *scratch, size_t block, row_springs_fn springs,
                             row_integrate_fn integrate)
{
    /* Local copies: with -fno-strict-aliasing every float store could otherwise modify the
     * caller's structs, and the loops would reload every pointer and size after each store. */
    const sks_surface s_local = *s_in;
    const sks_surface_params p_local = *p_in;
    const sks_surface *s = &s_local;
    const sks_surface_params *p = &p_local;
    const float E = p->elasticity;
    size_t done, depth, t, k;
    for (done = 0; done < p->substeps; done += depth) {
        depth = p->substeps - done < SKS_SURFACE_WAVE ? p->substeps - done : SKS_SURFACE_WAVE;
        clear_row_buffers(scratch, s->cols, 1 + 4 * depth);
        for (t = 0; t + 1 < s->rows + depth; t++) {
            for (k = 0; k < depth && k <= t; k++) {
                const size_t r = t - k;
                if (r < s->rows) {
                    const row_ctx rc = row_begin(s, E, r, scratch, k, block);
                    springs(s, E, &rc);
                    integrate(s, p, &rc, p->has_ext && done + k == 0);
                }
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * Scalar variants
 * ------------------------------------------------------------------------------------------ */

static void row_springs_scalar(const sks_surface *s_in, float E, const row_ctx *rc_in)
{
    const sks_surface s = *s_in;   /* local copies: see step_walk */
    const row_ctx rc = *rc_in;
    row_springs_tail_scalar(&s, E, &rc, 0);
}

static void row_integrate_scalar(const sks_surface *s_in, const sks_surface_params *p_in,
                                 const row_ctx *rc_in, int use_ext)
{
    const sks_surface s = *s_in;   /* local copies: see step_walk */
    const sks_surface_params p = *p_in;
    const row_ctx rc = *rc_in;
    row_integrate_tail_scalar(&s, &p, &rc, 0, use_ext);
}

static void surface_step_scalar(const sks_surface *s, const sks_surface_params *p, float *scratch)
{
    step_walk(s, p, scratch, 1, row_springs_scalar, row_integrate_scalar);
}

/* Face normals (2 x area x unit normal) of quad j of the band between rows r and r+1:
 * upper (P, E, SE) = (SE - P) x (E - P), lower (P, SE, S) = (S - P) x (SE - P). */
static inline void quad_faces_scalar(const float *pos, size_t plane, size_t i, size_t east,
                                     size_t south, size_t south_east, vec3f *upper, vec3f *lower)
{
    const vec3f c = load3(pos, plane, i);
    const vec3f a = sub3(load3(pos, plane, south_east), c);
    const vec3f b = sub3(load3(pos, plane, east), c);
    const vec3f d = sub3(load3(pos, plane, south), c);
    *upper = cross3(a, b);
    *lower = cross3(d, a);
}

/* Faces of band r for columns j0..cols-1 into U[c][j + 1], L[c][j + 1]; U[c][0], L[c][0] hold
 * the face of the last column on a cylinder, zero on a plane. */
static inline void band_faces_tail_scalar(const float *pos, size_t plane, size_t rows, size_t cols,
                                          int wrap, size_t r, size_t j0, float *U, float *L)
{
    const size_t stride = row_stride(cols);
    size_t j;
    for (j = j0; j < cols; j++) {
        vec3f u = vec3f_zero, l = vec3f_zero;
        const size_t i = r * cols + j;
        if (r + 1 < rows && (j + 1 < cols || wrap)) {
            const size_t jn = j + 1 < cols ? j + 1 : 0;
            quad_faces_scalar(pos, plane, i, r * cols + jn, i + cols, (r + 1) * cols + jn, &u, &l);
        }
        store3(U, stride, j + 1, u);
        store3(L, stride, j + 1, l);
    }
    store3(U, stride, 0, wrap ? load3(U, stride, cols) : vec3f_zero);
    store3(L, stride, 0, wrap ? load3(L, stride, cols) : vec3f_zero);
}

/* n = normalize(((((U[j+1] + L[j+1]) + U[j]) + Up[j]) + Lp[j]) + Lp[j+1]) for j >= j0. */
static inline void vertex_normals_tail_scalar(float *out, size_t out_plane, size_t r, size_t cols,
                                              size_t j0, const float *U, const float *L,
                                              const float *Up, const float *Lp)
{
    const size_t stride = row_stride(cols);
    size_t j;
    for (j = j0; j < cols; j++) {
        const vec3f n = add3(add3(add3(add3(add3(load3(U, stride, j + 1), load3(L, stride, j + 1)),
                                            load3(U, stride, j)),
                                       load3(Up, stride, j)),
                                  load3(Lp, stride, j)),
                             load3(Lp, stride, j + 1));
        const float len = norm3(n);
        const float inv = len > 0.0f ? 1.0f / len : 0.0f;
        store3(out, out_plane, r * cols + j, scale3(n, inv));
    }
}

typedef void (*band_faces_fn)(const float *pos, size_t plane, size_t rows, size_t cols, int wrap,
                              size_t r, float *U, float *L);
typedef void (*vertex_normals_fn)(float *out, size_t out_plane, size_t r, size_t cols,
                                  const float *U, const float *L, const float *Up,
                                  const float *Lp);

/* The normals walk shared by the variants: faces of band r, then the normals of row r. */
static inline void normals_walk(float *out, size_t out_plane, const float *pos, size_t plane,
                                size_t rows, size_t cols, int wrap, float *scratch,
                                band_faces_fn faces, vertex_normals_fn normals)
{
    size_t r;
    clear_row_buffers(scratch, cols, 4);
    for (r = 0; r < rows; r++) {
        const size_t cur = r & 1;
        float *U = row_buffer(scratch, cols, cur), *L = row_buffer(scratch, cols, 2 + cur);
        faces(pos, plane, rows, cols, wrap, r, U, L);
        normals(out, out_plane, r, cols, U, L, row_buffer(scratch, cols, 1 - cur),
                row_buffer(scratch, cols, 3 - cur));
    }
}

static void band_faces_scalar(const float *pos, size_t plane, size_t rows, size_t cols, int wrap,
                              size_t r, float *U, float *L)
{
    band_faces_tail_scalar(pos, plane, rows, cols, wrap, r, 0, U, L);
}

static void vertex_normals_scalar(float *out, size_t out_plane, size_t r, size_t cols,
                                  const float *U, const float *L, const float *Up, const float *Lp)
{
    vertex_normals_tail_scalar(out, out_plane, r, cols, 0, U, L, Up, Lp);
}

static void surface_normals_scalar(float *out, size_t out_plane, const float *pos, size_t plane,
                                   size_t rows, size_t cols, int wrap, float *scratch)
{
    normals_walk(out, out_plane, pos, plane, rows, cols, wrap, scratch, band_faces_scalar,
                 vertex_normals_scalar);
}

/* One effector on vertex i: the force and whether the vertex is in range. */
static inline int effector_force_scalar(const float *pos, size_t plane, size_t i, vec3f c,
                                        float radius, float strength, vec3f *f)
{
    const vec3f d = sub3(c, load3(pos, plane, i));
    const float dist = norm3(d);
    if (!(dist < radius && dist > 0.0f)) return 0;
    *f = scale3(d, strength / dist);
    return 1;
}

/* Vertices i0..n-1 of effector k: ext += F, reaction sums -F in double. */
static inline void effector_tail_scalar(float *ext, double *reaction, const float *pos,
                                        size_t plane, size_t i0, size_t n, vec3f c, float radius,
                                        float strength)
{
    size_t i;
    for (i = i0; i < n; i++) {
        vec3f f;
        if (!effector_force_scalar(pos, plane, i, c, radius, strength, &f)) continue;
        store3(ext, plane, i, add3(load3(ext, plane, i), f));
        reaction[0] -= f.x;
        reaction[1] -= f.y;
        reaction[2] -= f.z;
    }
}

static inline vec3f effector_center(const float *centers, size_t k)
{
    vec3f c = {centers[3 * k], centers[3 * k + 1], centers[3 * k + 2]};
    return c;
}

static void surface_effectors_scalar(float *ext, double *reaction, const float *pos, size_t plane,
                                     size_t n, const float *centers, const float *radius,
                                     const float *strength, size_t count)
{
    size_t k;
    for (k = 0; k < count; k++) {
        double *rk = reaction + 3 * k;
        rk[0] = rk[1] = rk[2] = 0.0;
        effector_tail_scalar(ext, rk, pos, plane, 0, n, effector_center(centers, k), radius[k],
                             strength[k]);
    }
}

#if SKS_HAVE_X86_SIMD
/* ------------------------------------------------------------------------------------------
 * SSE4.1 variants: 4 vertices of a row per iteration, the same operations as the scalar code.
 * ------------------------------------------------------------------------------------------ */

typedef struct v3_sse41 {
    __m128 x, y, z;
} v3_sse41;

SKS_TARGET_SSE41 static inline v3_sse41 load3_sse41(const float *p, size_t plane, size_t i)
{
    v3_sse41 v = {_mm_loadu_ps(p + i), _mm_loadu_ps(p + i + plane),
                  _mm_loadu_ps(p + i + 2 * plane)};
    return v;
}

SKS_TARGET_SSE41 static inline void store3_sse41(float *p, size_t plane, size_t i, v3_sse41 v)
{
    _mm_storeu_ps(p + i, v.x);
    _mm_storeu_ps(p + i + plane, v.y);
    _mm_storeu_ps(p + i + 2 * plane, v.z);
}

SKS_TARGET_SSE41 static inline v3_sse41 sub3_sse41(v3_sse41 a, v3_sse41 b)
{
    v3_sse41 r = {_mm_sub_ps(a.x, b.x), _mm_sub_ps(a.y, b.y), _mm_sub_ps(a.z, b.z)};
    return r;
}

SKS_TARGET_SSE41 static inline v3_sse41 add3_sse41(v3_sse41 a, v3_sse41 b)
{
    v3_sse41 r = {_mm_add_ps(a.x, b.x), _mm_add_ps(a.y, b.y), _mm_add_ps(a.z, b.z)};
    return r;
}

SKS_TARGET_SSE41 static inline v3_sse41 scale3_sse41(v3_sse41 a, __m128 k)
{
    v3_sse41 r = {_mm_mul_ps(a.x, k), _mm_mul_ps(a.y, k), _mm_mul_ps(a.z, k)};
    return r;
}

SKS_TARGET_SSE41 static inline v3_sse41 cross3_sse41(v3_sse41 a, v3_sse41 b)
{
    v3_sse41 r = {_mm_sub_ps(_mm_mul_ps(a.y, b.z), _mm_mul_ps(a.z, b.y)),
                  _mm_sub_ps(_mm_mul_ps(a.z, b.x), _mm_mul_ps(a.x, b.z)),
                  _mm_sub_ps(_mm_mul_ps(a.x, b.y), _mm_mul_ps(a.y, b.x))};
    return r;
}

SKS_TARGET_SSE41 static inline __m128 norm3_sse41(v3_sse41 d)
{
    return _mm_sqrt_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(d.x, d.x), _mm_mul_ps(d.y, d.y)),
                                  _mm_mul_ps(d.z, d.z)));
}

/* c where len > 0, else 0 (NaN lengths give 0, as in the scalar code) */
SKS_TARGET_SSE41 static inline __m128 where_positive_sse41(__m128 len, __m128 c)
{
    return _mm_and_ps(c, _mm_cmpgt_ps(len, _mm_setzero_ps()));
}

SKS_TARGET_SSE41 static inline v3_sse41 splat3_sse41(vec3f v)
{
    v3_sse41 r = {_mm_set1_ps(v.x), _mm_set1_ps(v.y), _mm_set1_ps(v.z)};
    return r;
}

/* All-ones lanes where pinned[i + lane] != 0. */
SKS_TARGET_SSE41 static inline __m128 pinned_mask_sse41(const unsigned char *pinned, size_t i)
{
    int32_t bytes;
    memcpy(&bytes, pinned + i, sizeof bytes);
    return _mm_castsi128_ps(
        _mm_cmpgt_epi32(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(bytes)), _mm_setzero_si128()));
}

/* spring_scalar for 4 vertices i..i+3. */
SKS_TARGET_SSE41 static inline v3_sse41 spring_sse41(const sks_surface *s, __m128 E, int kind,
                                                     size_t i, v3_sse41 d)
{
    const size_t ri = i * s->rest_step;
    if (s->model == SKS_SURFACE_LENGTH) {
        const __m128 len = norm3_sse41(d);
        const __m128 L0 = _mm_loadu_ps(s->rest + (size_t)kind * s->plane + ri);
        const __m128 c =
            where_positive_sse41(len, _mm_div_ps(_mm_mul_ps(E, _mm_sub_ps(len, L0)), len));
        return scale3_sse41(d, c);
    }
    return scale3_sse41(
        sub3_sse41(d, load3_sse41(s->rest + (size_t)kind * 3 * s->plane, s->plane, ri)), E);
}

SKS_TARGET_SSE41 static inline v3_sse41 spring_to_sse41(const sks_surface *s, __m128 E, int kind,
                                                        size_t i, size_t n, v3_sse41 c)
{
    return spring_sse41(s, E, kind, i, sub3_sse41(load3_sse41(s->pos, s->plane, n), c));
}

/* integrate_scalar for 4 vertices. */
SKS_TARGET_SSE41 static inline void integrate_sse41(const sks_surface *s,
                                                    const sks_surface_params *p, size_t i,
                                                    v3_sse41 f, int use_ext)
{
    const __m128 im = _mm_loadu_ps(s->inv_mass + i * s->mass_step);
    const __m128 dt = _mm_set1_ps(p->dt);
    const __m128 pin = pinned_mask_sse41(s->pinned, i);
    const v3_sse41 v0 = load3_sse41(s->vel, s->plane, i), x0 = load3_sse41(s->pos, s->plane, i);
    v3_sse41 a, v, x;
    if (use_ext) {
        f = add3_sse41(f, load3_sse41(s->ext, s->plane, i));
        store3_sse41(s->ext, s->plane, i, splat3_sse41(vec3f_zero));
    }
    a.x = _mm_add_ps(_mm_mul_ps(f.x, im), _mm_set1_ps(p->gravity[0]));
    a.y = _mm_add_ps(_mm_mul_ps(f.y, im), _mm_set1_ps(p->gravity[1]));
    a.z = _mm_add_ps(_mm_mul_ps(f.z, im), _mm_set1_ps(p->gravity[2]));
    v = add3_sse41(v0, scale3_sse41(a, dt));
    x = add3_sse41(x0, scale3_sse41(v, dt));
    v = scale3_sse41(v, _mm_set1_ps(p->damping));
    x.x = _mm_blendv_ps(x.x, x0.x, pin);
    x.y = _mm_blendv_ps(x.y, x0.y, pin);
    x.z = _mm_blendv_ps(x.z, x0.z, pin);
    v.x = _mm_blendv_ps(v.x, v0.x, pin);
    v.y = _mm_blendv_ps(v.y, v0.y, pin);
    v.z = _mm_blendv_ps(v.z, v0.z, pin);
    store3_sse41(s->pos, s->plane, i, x);
    store3_sse41(s->vel, s->plane, i, v);
}

/* Pass 1 of a row, 4 columns at a time (see row_springs_tail_scalar). */
SKS_TARGET_SSE41 static void row_springs_sse41(const sks_surface *s_in, float elasticity,
                                               const row_ctx *rc_in)
{
    const sks_surface s_local = *s_in;   /* local copies: see step_walk */
    const row_ctx rc_local = *rc_in;
    const sks_surface *s = &s_local;
    const row_ctx *rc = &rc_local;
    const size_t cols = s->cols, stride = row_stride(cols), r = rc->r;
    const __m128 E = _mm_set1_ps(elasticity);
    const v3_sse41 zero = splat3_sse41(vec3f_zero);
    size_t j;
    for (j = 0; j + 4 < cols; j += 4) {
        const size_t i = r * cols + j;
        const v3_sse41 c = load3_sse41(s->pos, s->plane, i);
        store3_sse41(rc->E, stride, j + 1, spring_to_sse41(s, E, 0, i, i + 1, c));
        store3_sse41(rc->S_cur, stride, j + 1,
                    rc->has_south ? spring_to_sse41(s, E, 1, i, i + cols, c) : zero);
        store3_sse41(rc->SE_cur, stride, j + 1,
                    rc->has_south ? spring_to_sse41(s, E, 2, i, i + cols + 1, c) : zero);
    }
    row_springs_tail_scalar(s, elasticity, rc, j);
}

/* Pass 2 of a row, 4 columns at a time (see row_integrate_tail_scalar). */
SKS_TARGET_SSE41 static void row_integrate_sse41(const sks_surface *s_in,
                                                 const sks_surface_params *p_in,
                                                 const row_ctx *rc_in, int use_ext)
{
    const sks_surface s_local = *s_in;   /* local copies: see step_walk */
    const sks_surface_params p_local = *p_in;
    const row_ctx rc_local = *rc_in;
    const sks_surface *s = &s_local;
    const sks_surface_params *p = &p_local;
    const row_ctx *rc = &rc_local;
    const size_t cols = s->cols, stride = row_stride(cols);
    size_t j;
    for (j = 0; j + 4 <= cols; j += 4) {
        const v3_sse41 f = sub3_sse41(
            sub3_sse41(sub3_sse41(add3_sse41(add3_sse41(load3_sse41(rc->E, stride, j + 1),
                                                  load3_sse41(rc->S_cur, stride, j + 1)),
                                       load3_sse41(rc->SE_cur, stride, j + 1)),
                            load3_sse41(rc->E, stride, j)),
                     load3_sse41(rc->S_prev, stride, j + 1)),
            load3_sse41(rc->SE_prev, stride, j));
        integrate_sse41(s, p, rc->r * cols + j, f, use_ext);
    }
    row_integrate_tail_scalar(s, p, rc, j, use_ext);
}

SKS_TARGET_SSE41 static void surface_step_sse41(const sks_surface *s, const sks_surface_params *p,
                                                float *scratch)
{
    step_walk(s, p, scratch, 1, row_springs_sse41, row_integrate_sse41);
}

SKS_TARGET_SSE41 static void band_faces_sse41(const float *pos, size_t plane, size_t rows,
                                              size_t cols, int wrap, size_t r, float *U, float *L)
{
    const size_t stride = row_stride(cols);
    size_t j = 0;
    if (r + 1 < rows) {
        for (; j + 4 < cols; j += 4) {
            const size_t i = r * cols + j;
            const v3_sse41 c = load3_sse41(pos, plane, i);
            const v3_sse41 a = sub3_sse41(load3_sse41(pos, plane, i + cols + 1), c);
            const v3_sse41 b = sub3_sse41(load3_sse41(pos, plane, i + 1), c);
            const v3_sse41 d = sub3_sse41(load3_sse41(pos, plane, i + cols), c);
            store3_sse41(U, stride, j + 1, cross3_sse41(a, b));
            store3_sse41(L, stride, j + 1, cross3_sse41(d, a));
        }
    }
    band_faces_tail_scalar(pos, plane, rows, cols, wrap, r, j, U, L);
}

SKS_TARGET_SSE41 static void vertex_normals_sse41(float *out, size_t out_plane, size_t r,
                                                  size_t cols, const float *U, const float *L,
                                                  const float *Up, const float *Lp)
{
    const size_t stride = row_stride(cols);
    size_t j;
    for (j = 0; j + 4 <= cols; j += 4) {
        const v3_sse41 n = add3_sse41(
            add3_sse41(add3_sse41(add3_sse41(add3_sse41(load3_sse41(U, stride, j + 1),
                                                        load3_sse41(L, stride, j + 1)),
                                             load3_sse41(U, stride, j)),
                                  load3_sse41(Up, stride, j)),
                       load3_sse41(Lp, stride, j)),
            load3_sse41(Lp, stride, j + 1));
        const __m128 len = norm3_sse41(n);
        const __m128 inv = where_positive_sse41(len, _mm_div_ps(_mm_set1_ps(1.0f), len));
        store3_sse41(out, out_plane, r * cols + j, scale3_sse41(n, inv));
    }
    vertex_normals_tail_scalar(out, out_plane, r, cols, j, U, L, Up, Lp);
}

SKS_TARGET_SSE41 static void surface_normals_sse41(float *out, size_t out_plane, const float *pos,
                                                   size_t plane, size_t rows, size_t cols, int wrap,
                                                   float *scratch)
{
    normals_walk(out, out_plane, pos, plane, rows, cols, wrap, scratch, band_faces_sse41,
                 vertex_normals_sse41);
}

/* v in the lanes of `mask`, +0 elsewhere (also where v is not finite) */
SKS_TARGET_SSE41 static inline v3_sse41 mask3_sse41(v3_sse41 v, __m128 mask)
{
    v3_sse41 r = {_mm_and_ps(v.x, mask), _mm_and_ps(v.y, mask), _mm_and_ps(v.z, mask)};
    return r;
}

/* Sum of the two float64 lanes of the float32 lanes of v, added to *acc. */
SKS_TARGET_SSE41 static inline __m128d widen_sum_sse41(__m128d acc, __m128 v)
{
    return _mm_add_pd(_mm_add_pd(acc, _mm_cvtps_pd(v)), _mm_cvtps_pd(_mm_movehl_ps(v, v)));
}

SKS_TARGET_SSE41 static inline double hsum_pd_sse41(__m128d v)
{
    return _mm_cvtsd_f64(_mm_add_sd(v, _mm_unpackhi_pd(v, v)));
}

SKS_TARGET_SSE41 static void surface_effectors_sse41(float *ext, double *reaction, const float *pos,
                                                     size_t plane, size_t n, const float *centers,
                                                     const float *radius, const float *strength,
                                                     size_t count)
{
    size_t k, i;
    for (k = 0; k < count; k++) {
        const vec3f cv = effector_center(centers, k);
        const v3_sse41 c = splat3_sse41(cv);
        const __m128 R = _mm_set1_ps(radius[k]), st = _mm_set1_ps(strength[k]);
        __m128d rx = _mm_setzero_pd(), ry = _mm_setzero_pd(), rz = _mm_setzero_pd();
        double *rk = reaction + 3 * k;
        for (i = 0; i + 4 <= n; i += 4) {
            const v3_sse41 d = sub3_sse41(c, load3_sse41(pos, plane, i));
            const __m128 dist = norm3_sse41(d);
            const __m128 in =
                _mm_and_ps(_mm_cmplt_ps(dist, R), _mm_cmpgt_ps(dist, _mm_setzero_ps()));
            const v3_sse41 f = mask3_sse41(scale3_sse41(d, _mm_div_ps(st, dist)), in);
            if (_mm_movemask_ps(in) == 0) continue;
            store3_sse41(ext, plane, i, add3_sse41(load3_sse41(ext, plane, i), f));
            rx = widen_sum_sse41(rx, f.x);
            ry = widen_sum_sse41(ry, f.y);
            rz = widen_sum_sse41(rz, f.z);
        }
        rk[0] = -hsum_pd_sse41(rx);
        rk[1] = -hsum_pd_sse41(ry);
        rk[2] = -hsum_pd_sse41(rz);
        effector_tail_scalar(ext, rk, pos, plane, i, n, cv, radius[k], strength[k]);
    }
}

/* ------------------------------------------------------------------------------------------
 * AVX2 variants: 8 vertices of a row per iteration, the same operations as the scalar code
 * (no FMA, so the results are bit-identical to the scalar and SSE4.1 variants).
 * ------------------------------------------------------------------------------------------ */

typedef struct v3_avx2 {
    __m256 x, y, z;
} v3_avx2;

SKS_TARGET_AVX2 static inline v3_avx2 load3_avx2(const float *p, size_t plane, size_t i)
{
    v3_avx2 v = {_mm256_loadu_ps(p + i), _mm256_loadu_ps(p + i + plane),
                 _mm256_loadu_ps(p + i + 2 * plane)};
    return v;
}

SKS_TARGET_AVX2 static inline void store3_avx2(float *p, size_t plane, size_t i, v3_avx2 v)
{
    _mm256_storeu_ps(p + i, v.x);
    _mm256_storeu_ps(p + i + plane, v.y);
    _mm256_storeu_ps(p + i + 2 * plane, v.z);
}

SKS_TARGET_AVX2 static inline v3_avx2 sub3_avx2(v3_avx2 a, v3_avx2 b)
{
    v3_avx2 r = {_mm256_sub_ps(a.x, b.x), _mm256_sub_ps(a.y, b.y), _mm256_sub_ps(a.z, b.z)};
    return r;
}

SKS_TARGET_AVX2 static inline v3_avx2 add3_avx2(v3_avx2 a, v3_avx2 b)
{
    v3_avx2 r = {_mm256_add_ps(a.x, b.x), _mm256_add_ps(a.y, b.y), _mm256_add_ps(a.z, b.z)};
    return r;
}

SKS_TARGET_AVX2 static inline v3_avx2 scale3_avx2(v3_avx2 a, __m256 k)
{
    v3_avx2 r = {_mm256_mul_ps(a.x, k), _mm256_mul_ps(a.y, k), _mm256_mul_ps(a.z, k)};
    return r;
}

SKS_TARGET_AVX2 static inline v3_avx2 cross3_avx2(v3_avx2 a, v3_avx2 b)
{
    v3_avx2 r = {_mm256_sub_ps(_mm256_mul_ps(a.y, b.z), _mm256_mul_ps(a.z, b.y)),
                 _mm256_sub_ps(_mm256_mul_ps(a.z, b.x), _mm256_mul_ps(a.x, b.z)),
                 _mm256_sub_ps(_mm256_mul_ps(a.x, b.y), _mm256_mul_ps(a.y, b.x))};
    return r;
}

SKS_TARGET_AVX2 static inline __m256 norm3_avx2(v3_avx2 d)
{
    return _mm256_sqrt_ps(_mm256_add_ps(
        _mm256_add_ps(_mm256_mul_ps(d.x, d.x), _mm256_mul_ps(d.y, d.y)), _mm256_mul_ps(d.z, d.z)));
}

SKS_TARGET_AVX2 static inline __m256 where_positive_avx2(__m256 len, __m256 c)
{
    return _mm256_and_ps(c, _mm256_cmp_ps(len, _mm256_setzero_ps(), _CMP_GT_OQ));
}

SKS_TARGET_AVX2 static inline v3_avx2 splat3_avx2(vec3f v)
{
    v3_avx2 r = {_mm256_set1_ps(v.x), _mm256_set1_ps(v.y), _mm256_set1_ps(v.z)};
    return r;
}

/* All-ones lanes where pinned[i + lane] != 0, lane < count (count <= 8). */
SKS_TARGET_AVX2 static inline __m256 pinned_mask_avx2(const unsigned char *pinned, size_t i,
                                                      size_t count)
{
    int64_t bytes = 0;
    memcpy(&bytes, pinned + i, count);
    return _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(bytes)),
                                                  _mm256_setzero_si256()));
}

SKS_TARGET_AVX2 static inline v3_avx2 spring_avx2(const sks_surface *s, __m256 E, int kind,
                                                  size_t i, v3_avx2 d)
{
    const size_t ri = i * s->rest_step;
    if (s->model == SKS_SURFACE_LENGTH) {
        const __m256 len = norm3_avx2(d);
        const __m256 L0 = _mm256_loadu_ps(s->rest + (size_t)kind * s->plane + ri);
        const __m256 c = where_positive_avx2(
            len, _mm256_div_ps(_mm256_mul_ps(E, _mm256_sub_ps(len, L0)), len));
        return scale3_avx2(d, c);
    }
    return scale3_avx2(
        sub3_avx2(d, load3_avx2(s->rest + (size_t)kind * 3 * s->plane, s->plane, ri)), E);
}

SKS_TARGET_AVX2 static inline v3_avx2 spring_to_avx2(const sks_surface *s, __m256 E, int kind,
                                                     size_t i, size_t n, v3_avx2 c)
{
    return spring_avx2(s, E, kind, i, sub3_avx2(load3_avx2(s->pos, s->plane, n), c));
}

/* Lanes below count (<= 8) all-ones. */
SKS_TARGET_AVX2 static inline __m256i lanes_below_avx2(size_t count)
{
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)count), lane);
}

/* load3/store3 of the lanes below count only (count < 8: the end of a row). */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE v3_avx2 load3_part_avx2(const float *p, size_t plane,
                                                                 size_t i, size_t count)
{
    const __m256i m = lanes_below_avx2(count);
    v3_avx2 v;
    if (count == 8) return load3_avx2(p, plane, i);
    v.x = _mm256_maskload_ps(p + i, m);
    v.y = _mm256_maskload_ps(p + i + plane, m);
    v.z = _mm256_maskload_ps(p + i + 2 * plane, m);
    return v;
}

SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void store3_part_avx2(float *p, size_t plane, size_t i,
                                                               v3_avx2 v, size_t count)
{
    const __m256i m = lanes_below_avx2(count);
    if (count == 8) {
        store3_avx2(p, plane, i, v);
        return;
    }
    _mm256_maskstore_ps(p + i, m, v.x);
    _mm256_maskstore_ps(p + i + plane, m, v.y);
    _mm256_maskstore_ps(p + i + 2 * plane, m, v.z);
}

/* A block's new position and velocity, not yet stored. */
typedef struct state_avx2 {
    v3_avx2 x, v;
} state_avx2;

/* integrate_scalar for the `count` (<= 8) vertices i.. of a row, without the stores: reads
 * pos, vel, ext (use_ext), inv_mass and pinned; see store_state_avx2. */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE state_avx2 advance_avx2(const sks_surface *s,
                                                                 const sks_surface_params *p,
                                                                 size_t i, v3_avx2 f, int use_ext,
                                                                 size_t count)
{
    const float *inv_mass = s->inv_mass + i * s->mass_step;
    const __m256 im = s->mass_step == 0 || count == 8
                          ? _mm256_loadu_ps(inv_mass)
                          : _mm256_maskload_ps(inv_mass, lanes_below_avx2(count));
    const __m256 dt = _mm256_set1_ps(p->dt);
    const __m256 pin = pinned_mask_avx2(s->pinned, i, count);
    const v3_avx2 v0 = load3_part_avx2(s->vel, s->plane, i, count);
    const v3_avx2 x0 = load3_part_avx2(s->pos, s->plane, i, count);
    v3_avx2 a, v, x;
    state_avx2 out;
    if (use_ext) f = add3_avx2(f, load3_part_avx2(s->ext, s->plane, i, count));
    a.x = _mm256_add_ps(_mm256_mul_ps(f.x, im), _mm256_set1_ps(p->gravity[0]));
    a.y = _mm256_add_ps(_mm256_mul_ps(f.y, im), _mm256_set1_ps(p->gravity[1]));
    a.z = _mm256_add_ps(_mm256_mul_ps(f.z, im), _mm256_set1_ps(p->gravity[2]));
    v = add3_avx2(v0, scale3_avx2(a, dt));
    x = add3_avx2(x0, scale3_avx2(v, dt));
    v = scale3_avx2(v, _mm256_set1_ps(p->damping));
    out.x.x = _mm256_blendv_ps(x.x, x0.x, pin);
    out.x.y = _mm256_blendv_ps(x.y, x0.y, pin);
    out.x.z = _mm256_blendv_ps(x.z, x0.z, pin);
    out.v.x = _mm256_blendv_ps(v.x, v0.x, pin);
    out.v.y = _mm256_blendv_ps(v.y, v0.y, pin);
    out.v.z = _mm256_blendv_ps(v.z, v0.z, pin);
    return out;
}

/* The stores of advance_avx2: pos, vel, and ext := 0 (use_ext). */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void store_state_avx2(const sks_surface *s, size_t i,
                                                               state_avx2 st, int use_ext,
                                                               size_t count)
{
    if (use_ext) store3_part_avx2(s->ext, s->plane, i, splat3_avx2(vec3f_zero), count);
    store3_part_avx2(s->pos, s->plane, i, st.x, count);
    store3_part_avx2(s->vel, s->plane, i, st.v, count);
}

/* The internal force of columns j..j+7 from the row buffers, in the shared order. */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE v3_avx2 row_force_avx2(const row_ctx *rc, size_t stride,
                                                                size_t j)
{
    return sub3_avx2(
        sub3_avx2(sub3_avx2(add3_avx2(add3_avx2(load3_avx2(rc->E, stride, j + 1),
                                                load3_avx2(rc->S_cur, stride, j + 1)),
                                      load3_avx2(rc->SE_cur, stride, j + 1)),
                            load3_avx2(rc->E, stride, j)),
                  load3_avx2(rc->S_prev, stride, j + 1)),
        load3_avx2(rc->SE_prev, stride, j));
}

/* The springs columns j..j+7 of row rc->r own, into the row buffers at j + 1. */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void springs_block_avx2(const sks_surface *s, __m256 E,
                                                                 const row_ctx *rc, size_t stride,
                                                                 size_t j)
{
    const size_t cols = s->cols, i = rc->r * cols + j;
    const v3_avx2 c = load3_avx2(s->pos, s->plane, i);
    const v3_avx2 zero = splat3_avx2(vec3f_zero);
    store3_avx2(rc->E, stride, j + 1, spring_to_avx2(s, E, 0, i, i + 1, c));
    store3_avx2(rc->S_cur, stride, j + 1,
                rc->has_south ? spring_to_avx2(s, E, 1, i, i + cols, c) : zero);
    store3_avx2(rc->SE_cur, stride, j + 1,
                rc->has_south ? spring_to_avx2(s, E, 2, i, i + cols + 1, c) : zero);
}

/* Pass 1 of a row, 8 columns at a time (see row_springs_tail_scalar). The blocks start at
 * rc->lead, where the row's positions (and, in the Surface's buffer, every other plane) and
 * the row buffers' j + 1 are 32-byte aligned, so that no block load or store of pos and rest
 * spans two cache lines; columns 0..lead-1 come from one unaligned block at column 0 first
 * (its lanes from lead on are computed again, with the same result). The last block runs past
 * the row end: its extra lanes read up to 8 floats past the next row (at most past the plane's
 * end, into the buffer's next plane) and land in the row buffers' slack; its last column's
 * lanes reach into the next row and are overwritten. */
SKS_TARGET_AVX2 static void row_springs_avx2(const sks_surface *s_in, float elasticity,
                                             const row_ctx *rc_in)
{
    const sks_surface s_local = *s_in;   /* local copies: see step_walk */
    const row_ctx rc_local = *rc_in;
    const sks_surface *s = &s_local;
    const row_ctx *rc = &rc_local;
    const size_t cols = s->cols, stride = row_stride(cols);
    const __m256 E = _mm256_set1_ps(elasticity);
    size_t j;
    if (rc->lead != 0) springs_block_avx2(s, E, rc, stride, 0);
    for (j = rc->lead; j < cols; j += 8) springs_block_avx2(s, E, rc, stride, j);
    store3(rc->E, stride, cols, rc->e_last);
    store3(rc->SE_cur, stride, cols, rc->se_last);
}

/* Integration of the blocks at columns j0, j0 + 8, .. < j1 of row rc->r (whole blocks). */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void integrate_blocks_avx2(const sks_surface *s,
                                                                    const sks_surface_params *p,
                                                                    const row_ctx *rc,
                                                                    size_t stride, size_t j0,
                                                                    size_t j1, int use_ext)
{
    const size_t row = rc->r * s->cols;
    size_t j;
    for (j = j0; j < j1; j += 8)
        store_state_avx2(s, row + j,
                         advance_avx2(s, p, row + j, row_force_avx2(rc, stride, j), use_ext, 8),
                         use_ext, 8);
}

/* Pass 2 of a row, 8 columns at a time (see row_integrate_tail_scalar). Rows of 8 or more
 * columns: the aligned blocks of row_springs_avx2 (from rc->lead) that fit in the row, plus
 * one unaligned block at column 0 when lead > 0 and one ending at the last column when the
 * aligned blocks stop short of it. These two overlap aligned blocks; a shared column gets the
 * same values from all of them as long as they all read the state before any of them writes
 * it, so the two are computed first and stored last (plain stores: no masked loads or stores,
 * which were the slowest part of a row). Rows of fewer than 8 columns: one block with masked
 * loads and stores. */
SKS_TARGET_AVX2 static void row_integrate_avx2(const sks_surface *s_in,
                                               const sks_surface_params *p_in,
                                               const row_ctx *rc_in, int use_ext)
{
    const sks_surface s_local = *s_in;   /* local copies: see step_walk */
    const sks_surface_params p_local = *p_in;
    const row_ctx rc_local = *rc_in;
    const sks_surface *s = &s_local;
    const sks_surface_params *p = &p_local;
    const row_ctx *rc = &rc_local;
    const size_t cols = s->cols, stride = row_stride(cols), row = rc->r * cols;
    size_t end;
    int head, tail;
    state_avx2 head_state, tail_state;
    if (cols < 8) {
        store_state_avx2(s, row, advance_avx2(s, p, row, row_force_avx2(rc, stride, 0), use_ext,
                                              cols),
                         use_ext, cols);
        return;
    }
    end = rc->lead + (cols - rc->lead) / 8 * 8;   /* the aligned blocks cover lead..end-1 */
    head = rc->lead != 0;
    tail = end != cols;
    if (!head && !tail) {   /* every row of a width that is a multiple of 8 */
        integrate_blocks_avx2(s, p, rc, stride, 0, cols, use_ext);
        return;
    }
    if (head) head_state = advance_avx2(s, p, row, row_force_avx2(rc, stride, 0), use_ext, 8);
    if (tail)
        tail_state = advance_avx2(s, p, row + cols - 8, row_force_avx2(rc, stride, cols - 8),
                                  use_ext, 8);
    integrate_blocks_avx2(s, p, rc, stride, rc->lead, end, use_ext);
    if (head) store_state_avx2(s, row, head_state, use_ext, 8);
    if (tail) store_state_avx2(s, row + cols - 8, tail_state, use_ext, 8);
}

SKS_TARGET_AVX2 static void surface_step_avx2(const sks_surface *s, const sks_surface_params *p,
                                              float *scratch)
{
    step_walk(s, p, scratch, 8, row_springs_avx2, row_integrate_avx2);
}

/* Faces of band r, 8 columns at a time; the last chunk runs past the row end (reads past the
 * position planes as in the step, spills into the buffers' slack), and the last column's faces
 * (and the wrapped ones at [0]) are then computed by the scalar tail. */
SKS_TARGET_AVX2 static void band_faces_avx2(const float *pos, size_t plane, size_t rows,
                                            size_t cols, int wrap, size_t r, float *U, float *L)
{
    const size_t stride = row_stride(cols);
    size_t j;
    if (r + 1 >= rows) {
        band_faces_tail_scalar(pos, plane, rows, cols, wrap, r, 0, U, L);
        return;
    }
    for (j = 0; j < cols; j += 8) {
        const size_t i = r * cols + j;
        const v3_avx2 c = load3_avx2(pos, plane, i);
        const v3_avx2 a = sub3_avx2(load3_avx2(pos, plane, i + cols + 1), c);
        const v3_avx2 b = sub3_avx2(load3_avx2(pos, plane, i + 1), c);
        const v3_avx2 d = sub3_avx2(load3_avx2(pos, plane, i + cols), c);
        store3_avx2(U, stride, j + 1, cross3_avx2(a, b));
        store3_avx2(L, stride, j + 1, cross3_avx2(d, a));
    }
    band_faces_tail_scalar(pos, plane, rows, cols, wrap, r, cols - 1, U, L);
}

SKS_TARGET_AVX2 static void vertex_normals_avx2(float *out, size_t out_plane, size_t r, size_t cols,
                                                const float *U, const float *L, const float *Up,
                                                const float *Lp)
{
    const size_t stride = row_stride(cols);
    size_t j;
    for (j = 0; j < cols; j += 8) {
        const v3_avx2 n = add3_avx2(
            add3_avx2(add3_avx2(add3_avx2(add3_avx2(load3_avx2(U, stride, j + 1),
                                                    load3_avx2(L, stride, j + 1)),
                                          load3_avx2(U, stride, j)),
                                load3_avx2(Up, stride, j)),
                      load3_avx2(Lp, stride, j)),
            load3_avx2(Lp, stride, j + 1));
        const __m256 len = norm3_avx2(n);
        const __m256 inv = where_positive_avx2(len, _mm256_div_ps(_mm256_set1_ps(1.0f), len));
        const v3_avx2 unit = scale3_avx2(n, inv);
        if (j + 8 <= cols) {
            store3_avx2(out, out_plane, r * cols + j, unit);
        } else {   /* the end of the row: only the lanes inside it */
            store3_part_avx2(out, out_plane, r * cols + j, unit, cols - j);
        }
    }
}

SKS_TARGET_AVX2 static void surface_normals_avx2(float *out, size_t out_plane, const float *pos,
                                                 size_t plane, size_t rows, size_t cols, int wrap,
                                                 float *scratch)
{
    normals_walk(out, out_plane, pos, plane, rows, cols, wrap, scratch, band_faces_avx2,
                 vertex_normals_avx2);
}

SKS_TARGET_AVX2 static inline v3_avx2 mask3_avx2(v3_avx2 v, __m256 mask)
{
    v3_avx2 r = {_mm256_and_ps(v.x, mask), _mm256_and_ps(v.y, mask), _mm256_and_ps(v.z, mask)};
    return r;
}

SKS_TARGET_AVX2 static inline __m256d widen_sum_avx2(__m256d acc, __m256 v)
{
    return _mm256_add_pd(_mm256_add_pd(acc, _mm256_cvtps_pd(_mm256_castps256_ps128(v))),
                         _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
}

SKS_TARGET_AVX2 static inline double hsum_pd_avx2(__m256d v)
{
    const __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

SKS_TARGET_AVX2 static void surface_effectors_avx2(float *ext, double *reaction, const float *pos,
                                                   size_t plane, size_t n, const float *centers,
                                                   const float *radius, const float *strength,
                                                   size_t count)
{
    size_t k, i;
    for (k = 0; k < count; k++) {
        const vec3f cv = effector_center(centers, k);
        const v3_avx2 c = splat3_avx2(cv);
        const __m256 R = _mm256_set1_ps(radius[k]), st = _mm256_set1_ps(strength[k]);
        __m256d rx = _mm256_setzero_pd(), ry = _mm256_setzero_pd(), rz = _mm256_setzero_pd();
        double *rk = reaction + 3 * k;
        for (i = 0; i + 8 <= n; i += 8) {
            const v3_avx2 d = sub3_avx2(c, load3_avx2(pos, plane, i));
            const __m256 dist = norm3_avx2(d);
            const __m256 in = _mm256_and_ps(_mm256_cmp_ps(dist, R, _CMP_LT_OQ),
                                            _mm256_cmp_ps(dist, _mm256_setzero_ps(), _CMP_GT_OQ));
            const v3_avx2 f = mask3_avx2(scale3_avx2(d, _mm256_div_ps(st, dist)), in);
            if (_mm256_movemask_ps(in) == 0) continue;
            store3_avx2(ext, plane, i, add3_avx2(load3_avx2(ext, plane, i), f));
            rx = widen_sum_avx2(rx, f.x);
            ry = widen_sum_avx2(ry, f.y);
            rz = widen_sum_avx2(rz, f.z);
        }
        rk[0] = -hsum_pd_avx2(rx);
        rk[1] = -hsum_pd_avx2(ry);
        rk[2] = -hsum_pd_avx2(rz);
        effector_tail_scalar(ext, rk, pos, plane, i, n, cv, radius[k], strength[k]);
    }
}

#endif /* SKS_HAVE_X86_SIMD */

/* ------------------------------------------------------------------------------------------
 * The dispatch table, indexed by enum sks_isa
 * ------------------------------------------------------------------------------------------ */

const sks_surface_kernels sks_surface_variants[SKS_ISA_COUNT] = {
    {surface_step_scalar, surface_normals_scalar, surface_effectors_scalar},
    {SKS_SIMD_OR_SCALAR(surface_step_sse41, surface_step_scalar),
     SKS_SIMD_OR_SCALAR(surface_normals_sse41, surface_normals_scalar),
     SKS_SIMD_OR_SCALAR(surface_effectors_sse41, surface_effectors_scalar)},
    {SKS_SIMD_OR_SCALAR(surface_step_avx2, surface_step_scalar),
     SKS_SIMD_OR_SCALAR(surface_normals_avx2, surface_normals_scalar),
     SKS_SIMD_OR_SCALAR(surface_effectors_avx2, surface_effectors_scalar)},
};
