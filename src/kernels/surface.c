/*
 * surface.c -- spring-grid surface kernels: step, normals, effectors (see surface.h for
 * layouts). Written once against the vector vocabulary and compiled per target (target.h):
 * SKS_W vertices of a row per vector (8 on avx2, 4 elsewhere).
 *
 * The step is one pass over the grid per substep, row by row. Row r computes the springs it
 * owns (east, south, south-east), keeps the south and south-east forces of the previous row in
 * two row buffers (scratch), and then integrates row r at once: the springs of later rows never
 * read row r again, so no second pass over the grid and no force planes are needed. The east
 * and south-east springs of the last column of a cylinder reach column 0, so they are computed
 * when the row starts, before column 0 moves.
 *
 * Row blocks: each row's vectors start at its first position on an SKS_VEC_ALIGN boundary
 * (row_ctx.lead; the row buffers move with the row), with one unaligned block at column 0 and
 * one ending at the last column, computed before and stored after the aligned ones, so that no
 * block load or store of the position planes spans two cache lines and no masked load or store
 * is needed from SKS_W columns on (widths that are not a multiple of the vector otherwise start
 * every other row off the grid and end every row in a masked block: on AVX2, 100 x 100 went
 * from 2.37 to 2.08 ns per vertex-substep with these blocks). Rows narrower than a vector use
 * one block of masked loads and stores (vf_load_n / vf_store_n).
 *
 * Bit-identical variants: the internal force of every vertex is summed in one order,
 *     F = ((((F_E + F_S) + F_SE) - F_W) - F_N) - F_NW
 * where F_E, F_S, F_SE are the springs the vertex owns and F_W, F_N, F_NW the springs owned by
 * its west, north and north-west neighbours (a spring that does not exist contributes +0), and
 * every spring, acceleration and update uses the same operations in every variant (no FMA).
 * A vertex computed by two overlapping blocks (the head and tail blocks) gets the same bits
 * from both. The effector reactions are the one exception: float64 sums in each target's order
 * (vnsum in vec.h).
 *
 * Divided over the thread pool (surface_bands.c, surface_step_band below): the grid is cut into
 * bands of whole rows and every group of up to SKS_SURFACE_WAVE substeps is one pool run, whose
 * join is the barrier between groups. A band keeps the wavefront over its own rows, in place,
 * and recomputes the up to `depth` rows above and below it (its neighbours' rows, fewer at each
 * substep: a trapezoid) from private copies taken before the run, so no band reads a row that
 * another band writes during the run. Every vertex of a band's own rows is computed with the
 * operations above on exactly the inputs of the plain step, so the result is bit-identical at
 * every thread count, and a row recomputed by two bands gets the same bits in both (only the
 * owner's copy is kept). A step whose group is estimated under the pool's threshold runs
 * surface_step itself, unchanged.
 *
 * Defects of Fomitchev's "2D Surface Deformation" fixed here (its Listing 1): it multiplies the
 * force by the mass (a = F * m dt); here a = (F + F_ext) / m. It integrates only vertices whose
 * Fixed flag is set; here pinned vertices are the ones that never move. Its normal is a copy of the
 * velocity (zero at rest); here normals are area-weighted triangle normals.
 */
#include "target.h"
#include "surface.h"
#include "v3_ops.h"

#include <math.h>

#define row_stride sks_surface_row_stride

/* The two passes over a row stay functions of their own: inlined into the walk, the walk's
 * state spills around them (AVX2 at 100 x 100 with one substep per call: 2-4% slower). */
#define ROW_PASS SKS_NOINLINE static

/* Floats per aligned block: the vector width in floats of SKS_VEC_ALIGN bytes (= SKS_W). */
#define BLOCK (SKS_VEC_ALIGN / sizeof(float))

/* Row buffers of the scratch: `which` < 1 + 4 * SKS_SURFACE_WAVE, 3 components each,
 * row_stride(cols) floats apart. Element [1] of every component is 32-byte aligned, and
 * elements up to [cols + 15] exist (row_begin moves a row's buffers by up to BLOCK - 1 floats). */
static inline float *row_buffer(float *scratch, size_t cols, size_t which)
{
    float *aligned = (float *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    return aligned + which * 3 * row_stride(cols) + 7;
}

/* Zeroes the first `count` buffers (the row above row 0 owns no springs). */
static void clear_row_buffers(float *scratch, size_t cols, size_t count)
{
    memset(row_buffer(scratch, cols, 0) - 7, 0, count * 3 * row_stride(cols) * sizeof(float));
}

/* ------------------------------------------------------------------------------------------
 * One vertex at a time: the last column's springs and faces, and the effectors' tail
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

/* The force on the owner of spring `kind` (0 E, 1 S, 2 SE) of vertex i towards vertex n,
 * d = S_n - S, or zero when that neighbour does not exist:
 * offset: E * (d - rest);  length: (E * (|d| - L0)) / |d| * d, zero when |d| is not > 0. */
static inline vec3f spring_one(const sks_surface *s, float E, int kind, size_t i, size_t n,
                               int exists)
{
    const size_t ri = i * s->rest_step;
    vec3f d;
    if (!exists) return vec3f_zero;
    d = sub3(load3(s->pos, s->plane, n), load3(s->pos, s->plane, i));
    if (s->model == SKS_SURFACE_LENGTH) {
        const float len = norm3(d);
        const float L0 = s->rest[(size_t)kind * s->plane + ri];
        const float c = len > 0.0f ? (E * (len - L0)) / len : 0.0f;
        return scale3(d, c);
    }
    return scale3(sub3(d, load3(s->rest + (size_t)kind * 3 * s->plane, s->plane, ri)), E);
}

/* ------------------------------------------------------------------------------------------
 * SKS_W vertices of a row at a time
 * ------------------------------------------------------------------------------------------ */

static SKS_ALWAYS_INLINE v3 v3_load(const float *p, size_t plane, size_t i)
{
    v3 v = {vf_load(p + i), vf_load(p + i + plane), vf_load(p + i + 2 * plane)};
    return v;
}

static SKS_ALWAYS_INLINE void v3_store(float *p, size_t plane, size_t i, v3 v)
{
    vf_store(p + i, v.x);
    vf_store(p + i + plane, v.y);
    vf_store(p + i + 2 * plane, v.z);
}

/* v3_load / v3_store of the first `count` <= SKS_W lanes only (count < SKS_W: a row narrower
 * than a vector); loaded lanes >= count are +0. */
static SKS_ALWAYS_INLINE v3 v3_load_n(const float *p, size_t plane, size_t i, size_t count)
{
    v3 v;
    if (count == SKS_W) return v3_load(p, plane, i);
    v.x = vf_load_n(p + i, count);
    v.y = vf_load_n(p + i + plane, count);
    v.z = vf_load_n(p + i + 2 * plane, count);
    return v;
}

static SKS_ALWAYS_INLINE void v3_store_n(float *p, size_t plane, size_t i, v3 v, size_t count)
{
    if (count == SKS_W) {
        v3_store(p, plane, i, v);
        return;
    }
    vf_store_n(p + i, v.x, count);
    vf_store_n(p + i + plane, v.y, count);
    vf_store_n(p + i + 2 * plane, v.z, count);
}

static SKS_ALWAYS_INLINE v3 v3_splat(vec3f v)
{
    v3 r = {vf_set1(v.x), vf_set1(v.y), vf_set1(v.z)};
    return r;
}

static SKS_ALWAYS_INLINE vf v3_norm(v3 d)
{
    return vf_sqrt(v3_dot(d, d));
}

/* c where len > 0, else +0 (NaN lengths give 0, as in spring_one) */
static SKS_ALWAYS_INLINE vf where_positive(vf len, vf c)
{
    return vf_if(vf_gt(len, vf_zero()), c);
}

/* spring_one for the SKS_W vertices i.. of a row towards n.., with c = their positions. */
static SKS_ALWAYS_INLINE v3 spring_block(const sks_surface *s, vf E, int kind, size_t i,
                                         size_t n, v3 c)
{
    const size_t ri = i * s->rest_step;
    const v3 d = v3_sub(v3_load(s->pos, s->plane, n), c);
    if (s->model == SKS_SURFACE_LENGTH) {
        const vf len = v3_norm(d);
        const vf L0 = vf_load(s->rest + (size_t)kind * s->plane + ri);
        return v3_scale(d, where_positive(len, vf_div(vf_mul(E, vf_sub(len, L0)), len)));
    }
    return v3_scale(v3_sub(d, v3_load(s->rest + (size_t)kind * 3 * s->plane, s->plane, ri)), E);
}

/* ------------------------------------------------------------------------------------------
 * Step
 * ------------------------------------------------------------------------------------------ */

/* Row state: the springs of the last column (computed before column 0 moves), and the row
 * buffers (3 components each, row_stride(cols) floats apart):
 *   E[c][j + 1]  east spring of column j;  E[c][0] the one reaching column 0 (or zero),
 *   S[c][j + 1]  south spring of column j (current row; S_prev: the row above),
 *   SE[c][j + 1] south-east spring of column j;  SE[c][0] the one reaching column 0 (or zero).
 * `lead` is the first column whose position is on a BLOCK-float boundary; the row's buffers
 * start (BLOCK - lead) % BLOCK floats into the scratch buffers, so that E[j + 1], S_cur[j + 1],
 * SE_cur[j + 1] are on a block boundary whenever position j is (S_prev, SE_prev keep the row
 * above's start). */
typedef struct row_ctx {
    size_t r;
    size_t lead;
    int has_south;
    vec3f e_last, se_last;          /* springs of column cols-1 (zero on a plane) */
    float *E, *S_cur, *SE_cur;
    const float *S_prev, *SE_prev;
} row_ctx;

/* Floats from a float-aligned p back to the previous BLOCK-float boundary. */
static inline size_t misalignment(const float *p)
{
    return (size_t)((uintptr_t)p / sizeof(float)) & (BLOCK - 1);
}

static inline row_ctx row_begin(const sks_surface *s, float E, size_t r, float *scratch,
                                size_t level)
{
    const size_t parity = r & 1, first = 1 + 4 * level;   /* buffer 0 is E, shared */
    const size_t cols = s->cols, last = r * cols + cols - 1;
    const size_t shift = misalignment(s->pos + r * cols);
    const size_t shift_prev = r > 0 ? misalignment(s->pos + (r - 1) * cols) : 0;
    row_ctx rc;
    rc.r = r;
    rc.lead = (BLOCK - shift) & (BLOCK - 1);
    rc.has_south = r + 1 < s->rows;
    rc.e_last = spring_one(s, E, 0, last, r * cols, s->wrap);
    rc.se_last = spring_one(s, E, 2, last, (r + 1) * cols, s->wrap && rc.has_south);
    rc.S_cur = row_buffer(scratch, cols, first + parity) + shift;
    rc.SE_cur = row_buffer(scratch, cols, first + 2 + parity) + shift;
    rc.S_prev = row_buffer(scratch, cols, first + 1 - parity) + shift_prev;
    rc.SE_prev = row_buffer(scratch, cols, first + 3 - parity) + shift_prev;
    rc.E = row_buffer(scratch, cols, 0) + shift;
    store3(rc.E, row_stride(cols), 0, rc.e_last);
    store3(rc.SE_cur, row_stride(cols), 0, rc.se_last);
    return rc;
}

/* The springs columns j..j+SKS_W-1 of row rc->r own, into the row buffers at j + 1. */
static SKS_ALWAYS_INLINE void springs_block(const sks_surface *s, vf E, const row_ctx *rc,
                                            size_t stride, size_t j)
{
    const size_t cols = s->cols, i = rc->r * cols + j;
    const v3 c = v3_load(s->pos, s->plane, i);
    const v3 zero = v3_splat(vec3f_zero);
    v3_store(rc->E, stride, j + 1, spring_block(s, E, 0, i, i + 1, c));
    v3_store(rc->S_cur, stride, j + 1, rc->has_south ? spring_block(s, E, 1, i, i + cols, c) : zero);
    v3_store(rc->SE_cur, stride, j + 1,
             rc->has_south ? spring_block(s, E, 2, i, i + cols + 1, c) : zero);
}

/* Pass 1 of a row: the springs it owns, into the row buffers. The blocks start at rc->lead,
 * where the row's positions (and, in the Surface's buffer, every other plane) and the row
 * buffers' j + 1 are aligned; columns 0..lead-1 come from one unaligned block at column 0
 * first (its lanes from lead on are computed again, with the same result). The last block runs
 * past the row end: its extra lanes read up to SKS_W floats past the next row (at most past the
 * plane's end, into the buffer's next plane) and land in the row buffers' slack; its last
 * column's lanes reach into the next row and are overwritten. */
static SKS_ALWAYS_INLINE void springs_row(const sks_surface *s, float elasticity,
                                          const row_ctx *rc)
{
    const size_t cols = s->cols, stride = row_stride(cols);
    const vf E = vf_set1(elasticity);
    size_t j;
    if (rc->lead != 0) springs_block(s, E, rc, stride, 0);
    for (j = rc->lead; j < cols; j += SKS_W) springs_block(s, E, rc, stride, j);
    store3(rc->E, stride, cols, rc->e_last);
    store3(rc->SE_cur, stride, cols, rc->se_last);
}

/* springs_row with the model, the rest layout and the south neighbours as constants (equal to
 * the values they replace): the loop then holds no flag and fewer pointers in the stack (AVX2,
 * offset model: 72 -> 62 instructions per block; integrate_row_as: 91 -> 63, 100 x 100 about
 * 3-5% faster on avx2 and avx512). The 4-lane targets keep one loop per pass. */
static SKS_ALWAYS_INLINE void springs_row_as(sks_surface s, row_ctx rc, float elasticity,
                                             int model, size_t rest_step, int has_south)
{
    s.model = model;
    s.rest_step = rest_step;
    rc.has_south = has_south;
    springs_row(&s, elasticity, &rc);
}

ROW_PASS void row_springs(const sks_surface *s_in, float elasticity, const row_ctx *rc_in)
{
    /* Local copies: with -fno-strict-aliasing every float store could otherwise modify the
     * caller's structs, and the loops would reload every pointer and size after each store. */
    const sks_surface s = *s_in;
    const row_ctx rc = *rc_in;
    const size_t step = s.rest_step != 0;
    if (SKS_W < 8) {   /* 4-lane targets: specialised, both passes measured 1-5% slower (sse41) */
        springs_row(&s, elasticity, &rc);
        return;
    }
    if (s.model == SKS_SURFACE_LENGTH) {
        if (rc.has_south)
            springs_row_as(s, rc, elasticity, SKS_SURFACE_LENGTH, s.rest_step, 1);
        else
            springs_row_as(s, rc, elasticity, SKS_SURFACE_LENGTH, s.rest_step, 0);
    } else if (step) {
        if (rc.has_south)
            springs_row_as(s, rc, elasticity, SKS_SURFACE_OFFSET, 1, 1);
        else
            springs_row_as(s, rc, elasticity, SKS_SURFACE_OFFSET, 1, 0);
    } else {
        if (rc.has_south)
            springs_row_as(s, rc, elasticity, SKS_SURFACE_OFFSET, 0, 1);
        else
            springs_row_as(s, rc, elasticity, SKS_SURFACE_OFFSET, 0, 0);
    }
}

/* A block's new position and velocity, not yet stored. */
typedef struct block_state {
    v3 x, v;
} block_state;

/* For the `count` (<= SKS_W) vertices i.. of a row, with internal force f:
 *   a = (f + ext) * (1/m) + g;  v' = v + a dt;  s' = s + v' dt;  v'' = d v'
 * (ext only when use_ext); a pinned vertex keeps s and v bitwise. Reads pos, vel, ext,
 * inv_mass and pinned, stores nothing (see store_state). */
static SKS_ALWAYS_INLINE block_state advance(const sks_surface *s, const sks_surface_params *p,
                                             size_t i, v3 f, int use_ext, size_t count)
{
    const float *inv_mass = s->inv_mass + i * s->mass_step;
    const vf im = s->mass_step == 0 || count == SKS_W ? vf_load(inv_mass)
                                                      : vf_load_n(inv_mass, count);
    const vf dt = vf_set1(p->dt);
    const vm pin = vi_gt(vi_load_u8_n(s->pinned + i, count), vi_set1(0));
    const v3 v0 = v3_load_n(s->vel, s->plane, i, count);
    const v3 x0 = v3_load_n(s->pos, s->plane, i, count);
    v3 a, v, x;
    block_state out;
    if (use_ext) f = v3_add(f, v3_load_n(s->ext, s->plane, i, count));
    a.x = vf_add(vf_mul(f.x, im), vf_set1(p->gravity[0]));
    a.y = vf_add(vf_mul(f.y, im), vf_set1(p->gravity[1]));
    a.z = vf_add(vf_mul(f.z, im), vf_set1(p->gravity[2]));
    v = v3_add(v0, v3_scale(a, dt));
    x = v3_add(x0, v3_scale(v, dt));
    v = v3_scale(v, vf_set1(p->damping));
    out.x.x = vf_select(pin, x0.x, x.x);
    out.x.y = vf_select(pin, x0.y, x.y);
    out.x.z = vf_select(pin, x0.z, x.z);
    out.v.x = vf_select(pin, v0.x, v.x);
    out.v.y = vf_select(pin, v0.y, v.y);
    out.v.z = vf_select(pin, v0.z, v.z);
    return out;
}

/* The stores of advance: pos, vel, and ext := 0 (use_ext). */
static SKS_ALWAYS_INLINE void store_state(const sks_surface *s, size_t i, block_state st,
                                          int use_ext, size_t count)
{
    if (use_ext) v3_store_n(s->ext, s->plane, i, v3_splat(vec3f_zero), count);
    v3_store_n(s->pos, s->plane, i, st.x, count);
    v3_store_n(s->vel, s->plane, i, st.v, count);
}

/* The internal force of columns j..j+SKS_W-1 from the row buffers, in the shared order. */
static SKS_ALWAYS_INLINE v3 row_force(const row_ctx *rc, size_t stride, size_t j)
{
    return v3_sub(v3_sub(v3_sub(v3_add(v3_add(v3_load(rc->E, stride, j + 1),
                                              v3_load(rc->S_cur, stride, j + 1)),
                                       v3_load(rc->SE_cur, stride, j + 1)),
                                v3_load(rc->E, stride, j)),
                         v3_load(rc->S_prev, stride, j + 1)),
                  v3_load(rc->SE_prev, stride, j));
}

/* Integration of the blocks at columns j0, j0 + SKS_W, .. < j1 of row rc->r (whole blocks). */
static SKS_ALWAYS_INLINE void integrate_blocks(const sks_surface *s, const sks_surface_params *p,
                                               const row_ctx *rc, size_t stride, size_t j0,
                                               size_t j1, int use_ext)
{
    const size_t row = rc->r * s->cols;
    size_t j;
    for (j = j0; j < j1; j += SKS_W)
        store_state(s, row + j, advance(s, p, row + j, row_force(rc, stride, j), use_ext, SKS_W),
                    use_ext, SKS_W);
}

/* Pass 2 of a row: total force from the row buffers, then integration. Rows of SKS_W or more
 * columns: the aligned blocks of row_springs (from rc->lead) that fit in the row, plus one
 * unaligned block at column 0 when lead > 0 and one ending at the last column when the aligned
 * blocks stop short of it. These two overlap aligned blocks; a shared column gets the same
 * values from all of them as long as they all read the state before any of them writes it, so
 * the two are computed first and stored last (plain stores: no masked loads or stores, which
 * were the slowest part of a row). Rows of fewer than SKS_W columns: one block with masked
 * loads and stores. */
static SKS_ALWAYS_INLINE void integrate_row(const sks_surface *s, const sks_surface_params *p,
                                            const row_ctx *rc, int use_ext)
{
    const size_t cols = s->cols, stride = row_stride(cols), row = rc->r * cols;
    size_t end;
    int head, tail;
    block_state head_state, tail_state;
    if (cols < SKS_W) {
        store_state(s, row, advance(s, p, row, row_force(rc, stride, 0), use_ext, cols), use_ext,
                    cols);
        return;
    }
    end = rc->lead + (cols - rc->lead) / SKS_W * SKS_W;   /* aligned blocks: lead..end-1 */
    head = rc->lead != 0;
    tail = end != cols;
    if (!head && !tail) {   /* every row of a width that is a multiple of BLOCK */
        integrate_blocks(s, p, rc, stride, 0, cols, use_ext);
        return;
    }
    if (head) head_state = advance(s, p, row, row_force(rc, stride, 0), use_ext, SKS_W);
    if (tail)
        tail_state = advance(s, p, row + cols - SKS_W, row_force(rc, stride, cols - SKS_W),
                             use_ext, SKS_W);
    integrate_blocks(s, p, rc, stride, rc->lead, end, use_ext);
    if (head) store_state(s, row, head_state, use_ext, SKS_W);
    if (tail) store_state(s, row + cols - SKS_W, tail_state, use_ext, SKS_W);
}

/* integrate_row with the mass layout and use_ext as constants (see springs_row_as). */
static SKS_ALWAYS_INLINE void integrate_row_as(sks_surface s, const sks_surface_params *p,
                                               const row_ctx *rc, size_t mass_step, int use_ext)
{
    s.mass_step = mass_step;
    integrate_row(&s, p, rc, use_ext);
}

ROW_PASS void row_integrate(const sks_surface *s_in, const sks_surface_params *p_in,
                            const row_ctx *rc_in, int use_ext)
{
    const sks_surface s = *s_in;   /* local copies: see row_springs */
    const sks_surface_params p = *p_in;
    const row_ctx rc = *rc_in;
    if (SKS_W < 8) {   /* see row_springs */
        integrate_row(&s, &p, &rc, use_ext);
        return;
    }
    if (use_ext) {
        integrate_row_as(s, &p, &rc, s.mass_step, 1);
    } else if (s.mass_step) {
        integrate_row_as(s, &p, &rc, 1, 0);
    } else {
        integrate_row_as(s, &p, &rc, 0, 0);
    }
}

/* `substeps` times, for every vertex (internal force F from its up to six springs):
 *   a = (F + ext) / m + g  (ext in the first substep only, then ext := 0)
 *   v' = v + a dt;  s' = s + v' dt;  v'' = d v'   (symplectic Euler, then damping)
 * with F summed as ((((F_E + F_S) + F_SE) - F_W) - F_N) - F_NW, each spring
 * offset: E * (d - rest), length: (E * (|d| - L0)) / |d| * d (zero unless |d| > 0), and the
 * acceleration as (F + ext) * (1/m) + g. Pinned vertices keep s and v bitwise. Error: one
 * substep rounds every operation once in float32 (no FMA); identical on every target.
 *
 * Substeps run as a wavefront, up to SKS_SURFACE_WAVE at a time: at wave t, substep k advances
 * row t - k. That row's springs need rows r and r+1 after substep k - 1 (row r+1 got there
 * earlier in the same wave, and moves on only at wave t + 1) and the south springs of row r-1
 * in substep k (wave t - 1). So every vertex sees exactly the inputs of the plain
 * substep-by-substep order (the results are identical) while a large grid streams from memory
 * once per SKS_SURFACE_WAVE substeps instead of once per substep (2x faster at 1000 x 1000). */
static void surface_step(const sks_surface *s_in, const sks_surface_params *p_in, float *scratch)
{
    const sks_surface s_local = *s_in;   /* local copies: see row_springs */
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
                    const row_ctx rc = row_begin(s, E, r, scratch, k);
                    row_springs(s, E, &rc);
                    row_integrate(s, p, &rc, p->has_ext && done + k == 0);
                }
            }
        }
    }
}

/* One band of a step divided over the thread pool (surface_bands.c): rows [b0, b1) of `s`
 * advance the `depth` substeps done..done+depth-1 in place, as in surface_step, while the rows
 * around the band are computed again from private copies: `top` holds rows [lo, b0] (lo <
 * b0; row b0 a copy of the band's first row), `bottom` rows [b1 - 1, hi) (hi > b1; row b1 - 1
 * a copy of the band's last row), both indexed by the grid's own row numbers (their pos, vel,
 * ext and rest pointers are offset, inv_mass and pinned are the grid's). NULL when lo == b0
 * (lo == 0: the grid's first row) or hi == b1 (the grid's last row). At the start, the rows
 * outside the band hold the state before substep `done`, and hi - b1, b0 - lo >= depth (or
 * lo, hi are the grid's edges).
 *
 * The band's wavefront covers rows [lo, hi) as a trapezoid: substep k (0-based in the group)
 * advances rows [lo + k + 1, hi - k - 1) (from row 0 / to the last row at the grid's edges),
 * the rows whose neighbours it has already brought to substep k; the springs of the row above
 * that range are computed from its state before substep k (that row is not advanced). So after
 * `depth` substeps rows [b0, b1) are exactly where surface_step leaves them, each vertex
 * computed with the same operations on the same inputs: the results are bit-identical to one
 * plain step, and the rows outside the band (another band's) are never written. The springs of
 * row b0 - 1 read row b0 from `top`, and those of row b1 - 1 are computed in `bottom` (they reach
 * row b1), so before them the band's row is copied there; the private rows start at the same
 * offset against the vector grid as the grid's rows, so that a row's buffers line up whichever
 * copy computed them. As in the plain step, the last block of a row reads up to SKS_W floats
 * past it and discards them: in a divided step they can be the first floats of the next band's
 * row (or of the next plane) while that band writes them, and are never used. */
static void copy_row_pos(const sks_surface *to, const sks_surface *from, size_t r)
{
    const size_t cols = from->cols;
    size_t c;
    for (c = 0; c < 3; c++)
        memcpy(to->pos + c * to->plane + r * cols, from->pos + c * from->plane + r * cols,
               cols * sizeof(float));
}

static void surface_step_band(const sks_surface *s_in, const sks_surface_params *p_in,
                              size_t done, size_t depth, size_t lo, size_t b0, size_t b1,
                              size_t hi, const sks_surface *top_in,
                              const sks_surface *bottom_in, float *scratch)
{
    const sks_surface s_local = *s_in;   /* local copies: see row_springs */
    const sks_surface_params p_local = *p_in;
    const sks_surface top = top_in != NULL ? *top_in : s_local;
    const sks_surface bottom = bottom_in != NULL ? *bottom_in : s_local;
    const sks_surface *s = &s_local;
    const sks_surface_params *p = &p_local;
    const float E = p->elasticity;
    const size_t rows = s->rows;
    size_t t, k;
    clear_row_buffers(scratch, s->cols, 1 + 4 * depth);
    for (t = 0; t + 1 < hi - lo + depth; t++) {
        for (k = 0; k < depth && k <= t; k++) {
            const size_t r = lo + t - k;
            const size_t first = lo == 0 ? 0 : lo + k + 1;
            const size_t end = hi == rows ? rows : hi - k - 1;
            const int full = r >= first && r < end;
            const sks_surface *x = s;
            row_ctx rc;
            if (!full && r + 1 != first) continue;
            if (r < b0) {
                x = &top;
                if (r + 1 == b0) copy_row_pos(&top, s, b0);
            } else if (hi > b1 && r + 1 >= b1) {
                x = &bottom;
                if (r + 1 == b1) copy_row_pos(&bottom, s, r);
            }
            rc = row_begin(x, E, r, scratch, k);
            row_springs(x, E, &rc);
            if (full)
                row_integrate(r >= b0 && r < b1 ? s : x, p, &rc, p->has_ext && done + k == 0);
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * Normals
 * ------------------------------------------------------------------------------------------ */

/* Faces of band r (between rows r and r+1) for columns j0..cols-1, one vertex at a time, into
 * U[c][j + 1], L[c][j + 1] (zero in the last row, and in the last column of a plane); U[c][0],
 * L[c][0] hold the face of the last column on a cylinder, zero on a plane. Upper face of quad
 * (P, E, SE): (SE - P) x (E - P); lower (P, SE, S): (S - P) x (SE - P). */
static inline void band_faces_tail(const float *pos, size_t plane, size_t rows, size_t cols,
                                   int wrap, size_t r, size_t j0, float *U, float *L)
{
    const size_t stride = row_stride(cols);
    size_t j;
    for (j = j0; j < cols; j++) {
        vec3f u = vec3f_zero, l = vec3f_zero;
        const size_t i = r * cols + j;
        if (r + 1 < rows && (j + 1 < cols || wrap)) {
            const size_t jn = j + 1 < cols ? j + 1 : 0;
            const vec3f c = load3(pos, plane, i);
            const vec3f a = sub3(load3(pos, plane, (r + 1) * cols + jn), c);
            const vec3f b = sub3(load3(pos, plane, r * cols + jn), c);
            const vec3f d = sub3(load3(pos, plane, i + cols), c);
            u = cross3(a, b);
            l = cross3(d, a);
        }
        store3(U, stride, j + 1, u);
        store3(L, stride, j + 1, l);
    }
    store3(U, stride, 0, wrap ? load3(U, stride, cols) : vec3f_zero);
    store3(L, stride, 0, wrap ? load3(L, stride, cols) : vec3f_zero);
}

/* Faces of band r, SKS_W columns at a time; the last block runs past the row end (reads past
 * the position planes as in the step, spills into the buffers' slack), and the last column's
 * faces (and the wrapped ones at [0]) are then computed by band_faces_tail. */
static void band_faces(const float *pos, size_t plane, size_t rows, size_t cols, int wrap,
                       size_t r, float *U, float *L)
{
    const size_t stride = row_stride(cols);
    size_t j;
    if (r + 1 >= rows) {
        band_faces_tail(pos, plane, rows, cols, wrap, r, 0, U, L);
        return;
    }
    for (j = 0; j < cols; j += SKS_W) {
        const size_t i = r * cols + j;
        const v3 c = v3_load(pos, plane, i);
        const v3 a = v3_sub(v3_load(pos, plane, i + cols + 1), c);
        const v3 b = v3_sub(v3_load(pos, plane, i + 1), c);
        const v3 d = v3_sub(v3_load(pos, plane, i + cols), c);
        v3_store(U, stride, j + 1, v3_cross(a, b));
        v3_store(L, stride, j + 1, v3_cross(d, a));
    }
    band_faces_tail(pos, plane, rows, cols, wrap, r, cols - 1, U, L);
}

/* n = normalize(((((U[j+1] + L[j+1]) + U[j]) + Up[j]) + Lp[j]) + Lp[j+1]) for row r. */
static void vertex_normals(float *out, size_t out_plane, size_t r, size_t cols, const float *U,
                           const float *L, const float *Up, const float *Lp)
{
    const size_t stride = row_stride(cols);
    size_t j;
    for (j = 0; j < cols; j += SKS_W) {
        const v3 n = v3_add(v3_add(v3_add(v3_add(v3_add(v3_load(U, stride, j + 1),
                                                        v3_load(L, stride, j + 1)),
                                                 v3_load(U, stride, j)),
                                          v3_load(Up, stride, j)),
                                   v3_load(Lp, stride, j)),
                            v3_load(Lp, stride, j + 1));
        const vf len = v3_norm(n);
        const vf inv = where_positive(len, vf_div(vf_set1(1.0f), len));
        const v3 unit = v3_scale(n, inv);
        if (j + SKS_W <= cols) {
            v3_store(out, out_plane, r * cols + j, unit);
        } else {   /* the end of the row: only the lanes inside it */
            v3_store_n(out, out_plane, r * cols + j, unit, cols - j);
        }
    }
}

/* Unit area-weighted vertex normals: the sum of the face normals (2 x area x unit normal) of
 * the up to six triangles around each vertex, in the order of vertex_normals, times
 * 1 / sqrt((x*x + y*y) + z*z) (+0 when that length is not > 0: all faces of zero area). Band
 * by band: the faces of band r, then the normals of row r (from bands r and r - 1). */
static void surface_normals(float *out, size_t out_plane, const float *pos, size_t plane,
                            size_t rows, size_t cols, int wrap, float *scratch)
{
    size_t r;
    clear_row_buffers(scratch, cols, 4);
    for (r = 0; r < rows; r++) {
        const size_t cur = r & 1;
        float *U = row_buffer(scratch, cols, cur), *L = row_buffer(scratch, cols, 2 + cur);
        band_faces(pos, plane, rows, cols, wrap, r, U, L);
        vertex_normals(out, out_plane, r, cols, U, L, row_buffer(scratch, cols, 1 - cur),
                       row_buffer(scratch, cols, 3 - cur));
    }
}

/* ------------------------------------------------------------------------------------------
 * Effectors
 * ------------------------------------------------------------------------------------------ */

/* Vertices i0..n-1 of one effector, one at a time (the tail after the whole vectors): for a
 * vertex in range, ext += F and reaction -= F in double. */
static void effector_tail(float *ext, double *reaction, const float *pos, size_t plane,
                          size_t i0, size_t n, vec3f c, float radius, float strength)
{
    size_t i;
    for (i = i0; i < n; i++) {
        const vec3f d = sub3(c, load3(pos, plane, i));
        const float dist = norm3(d);
        vec3f f;
        if (!(dist < radius && dist > 0.0f)) continue;
        f = scale3(d, strength / dist);
        store3(ext, plane, i, add3(load3(ext, plane, i), f));
        reaction[0] -= f.x;
        reaction[1] -= f.y;
        reaction[2] -= f.z;
    }
}

/* For each effector k in order and each vertex i < n with 0 < dist < radius_k, where
 * d = C_k - S_i and dist = sqrt((dx*dx + dy*dy) + dz*dz):
 *   F = d * (strength_k / dist);  ext_i += F;  reaction_k -= F (float64)
 * A vertex out of range (or with a NaN distance) is left alone: out-of-range lanes add -0.0,
 * which keeps every ext value bitwise, -0.0 included. The reaction of effector k is the float64
 * sum of the float32 forces in the target's order (vnsum over whole vectors, then the tail
 * vertices subtracted one by one): the one output that differs between targets, in the last
 * float64 bits (relative error of the sum <= n * 2^-53 of the sum of |F|) and the sign of a
 * zero sum; rounded to float32 by the caller. */
static void surface_effectors(float *ext, double *reaction, const float *pos, size_t plane,
                              size_t n, const float *centers, const float *radius,
                              const float *strength, size_t count)
{
    size_t k, i;
    for (k = 0; k < count; k++) {
        const vec3f cv = {centers[3 * k], centers[3 * k + 1], centers[3 * k + 2]};
        const v3 c = v3_splat(cv);
        const vf R = vf_set1(radius[k]), st = vf_set1(strength[k]), out_value = vf_set1(-0.0f);
        vnsum rx = vnsum_zero(), ry = vnsum_zero(), rz = vnsum_zero();
        double *rk = reaction + 3 * k;
        for (i = 0; i + SKS_W <= n; i += SKS_W) {
            const v3 d = v3_sub(c, v3_load(pos, plane, i));
            const vf dist = v3_norm(d);
            const vm near = vf_lt(dist, R);
            vm in;
            v3 f, fin;
            if (!vm_any(near)) continue;   /* most vectors of a small radius: one test */
            in = vm_and(near, vf_gt(dist, vf_zero()));
            if (!vm_any(in)) continue;
            f = v3_scale(d, vf_div(st, dist));
            fin.x = vf_select(in, f.x, out_value);
            fin.y = vf_select(in, f.y, out_value);
            fin.z = vf_select(in, f.z, out_value);
            v3_store(ext, plane, i, v3_add(v3_load(ext, plane, i), fin));
            rx = vnsum_sub(rx, fin.x);
            ry = vnsum_sub(ry, fin.y);
            rz = vnsum_sub(rz, fin.z);
        }
        rk[0] = vnsum_value(rx);
        rk[1] = vnsum_value(ry);
        rk[2] = vnsum_value(rz);
        effector_tail(ext, rk, pos, plane, i, n, cv, radius[k], strength[k]);
    }
}

SKS_ROW(surface) = {surface_step, surface_normals, surface_effectors, surface_step_band};
