/*
 * retarget.c -- the remap of retargeting (see retarget.h), written once against the vector
 * vocabulary and compiled per target (target.h).
 *
 * Rest alignment in world space: the source's world rotation changes are carried onto the
 * target through one offset per mapped joint, fixed at rest (offsets[j] = conj(source rest
 * world rotation) * target rest world rotation, computed by the caller). Per frame, for
 * j = 0 .. Jt - 1 with p = parents[j], s = src_index[j] (mapped when s >= 0), S the source's
 * world joints and W the target's world joints being built:
 *
 *   mapped j:    Wq[j] = Sq[s] * offsets[j]
 *                out_q[j] = Wq[j]                                        (root)
 *                         = conj(Wq[p]) * Wq[j]                          (child)
 *                placed[j]: out_t[j] = St[s]                             (root)
 *                                    = (R(Wq[p])^T (St[s] - Wt[p])) / Ws[p]   (child)
 *                           Wt[j] = St[s]
 *                otherwise: out_t[j] = rest_t[j]
 *                           Wt[j] = rest_t[j] (root), Wt[p] + (Ws[p] R(Wq[p])) rest_t[j] (child)
 *                out_s[j] = rest_s[j]
 *   unmapped j:  out[j] = rest[j] (all 8 floats, copied)
 *                Wq[j] = rest_q[j] (root), Wq[p] * rest_q[j] (child)
 *                Wt[j] = rest_t[j] (root), Wt[p] + (Ws[p] R(Wq[p])) rest_t[j] (child)
 *   every j:     Ws[j] = rest_s[j] (root), Ws[p] rest_s[j] (child)
 *
 * This is the contract's formula (retargeting's kernel contract: out_q = conj(Wq[p]) Wq[j],
 * out_t from the world position of a placed joint, W from the outputs) with two identities of
 * unit quaternions applied: an unmapped joint's conj(Wq[p]) (Wq[p] rest_q) is rest_q (its
 * output is its rest, exactly), and a placed joint's Wt[p] + Ws[p] R(Wq[p]) out_t is St[s] (its
 * world position is the source's, exactly, so the error does not accumulate down a chain of
 * placed joints). The source's scales (S's 8th float) are not read: scales are the target's.
 *
 * Operation order (the same on every target, no FMA):
 *   a * b     the Hamilton product of quat_ops.h: x = (aw bx + ax bw) + (ay bz - az by), y and z
 *             cyclic, w = (aw bw - ax bx) - (ay by + az bz); conj(a) * b negates a's x, y, z
 *             first (exact)
 *   R(q)      quat_ops.h's s R(q / |q|) with n2 = (xx + zz) + (yy + ww), h = s / n2 (s = 1 for
 *             R, s = Ws[p] for Ws[p] R): diagonal h ((ww + xx) - (yy + zz)), off-diagonal
 *             2h (xy - zw) etc.; a zero q rotates as the identity
 *   Wt[j]     ((M0 r0 + M1 r1) + M2 r2) + Wt[p] per row, M = Ws[p] R(Wq[p]), r = rest_t[j]
 *             (the QTS walk's order: the parent's translation added last)
 *   out_t[j]  d = St[s] - Wt[p]; ((R0c d0 + R1c d1) + R2c d2) / Ws[p] for column c of R(Wq[p])
 *   Ws[j]     Ws[p] * rest_s[j]
 * Only what the output needs is computed: a joint's world rotation when a descendant reads it
 * (a mapped child, or an unmapped child whose own world rotation is read), its world
 * translation and scale when a placed joint below it reads them. That choice depends on the
 * mapping alone, never on the data or the target, so every target computes the same values.
 *
 * Edge cases: a zero quaternion (source, offset or rest) rotates as the identity in R and
 * multiplies to zero in the products; a zero or tiny Ws[p] above a placed joint gives
 * infinite or NaN translations there (the caller refuses non-finite source joints; rests and
 * offsets are the caller's). Non-unit quaternions are used as they are (no normalisation):
 * the identities above then hold up to their squared norms.
 *
 * Vectorisation, the same body on every target: SKS_W frames side by side, one per lane. Joint
 * j of every frame is loaded into SoA (quat_ops.h's item order: the source's quaternion, with
 * its translation for a placed joint, transposed from SKS_W joint rows), combined with the
 * parent's SoA world record (written to the caller's scratch when the parent was computed),
 * transposed back and stored as one 8-float row per frame (the constant halves of unplaced and
 * unmapped joints are broadcast rows). The last group of frames runs the same body with only
 * its frames' rows loaded and stored (masked tails).
 *
 * Error against the float64 reference of the contract's formula (unit quaternions, d the depth
 * of the target hierarchy, T the largest world translation of the source and the target, rest
 * scales in [0.8, 1.25]), per component: quaternions <= 2**-22 (d + 1) (a chain of unmapped
 * joints multiplies rest rotations down it; 0.69 * 2**-23 (d + 1) measured), placed
 * translations <= 2**-21 (d + 1) max(1, T) (Wt[p] is a walk down the unplaced ancestors;
 * 1.7 * 2**-23 (d + 1) max(1, T) measured); every other translation and every scale is the
 * rest's, exactly. Bounds retarget.remap and retarget.remap.translation in skelsimd/bounds.py.
 */
#include "target.h"
#include "retarget.h"
#include "quat_ops.h"

/* The caller's scratch (retarget.h) holds SKS_RETARGET_MAX_LANES lanes per record field. */
typedef char retarget_scratch_fits[SKS_W <= SKS_RETARGET_MAX_LANES ? 1 : -1];

/* The plan of a joint: what the mapping asks of it, the same for every frame. */
enum {
    MAPPED = 1, /* src_index[j] >= 0 */
    PLACED = 2, /* mapped and placed[j] */
    NEED_W = 4, /* a child reads its world rotation: keep Wq[j] in the record */
    NEED_T = 8  /* a placed joint below reads its world translation and scale: Wt[j], Ws[j] too */
};

/* Floats of one joint's world record: q (4), t (3), s (1), SKS_W lanes each. */
#define REC (8 * SKS_W)

static void make_plan(unsigned char *code, const sks_retarget_args *a)
{
    size_t j;
    for (j = 0; j < a->targets; j++) {
        const int mapped = a->src_index[j] >= 0;
        code[j] = (unsigned char)((mapped ? MAPPED : 0) | (mapped && a->placed[j] ? PLACED : 0));
    }
    for (j = a->targets; j-- > 0;) {
        const int32_t p = a->parents[j];
        if (p < 0) continue;
        if (code[j] & (PLACED | NEED_T)) code[p] |= NEED_T | NEED_W;
        if (code[j] & (MAPPED | NEED_W)) code[p] |= NEED_W;
    }
}

typedef struct world {
    quat_soa q;
    vf t[3], s;
} world;

static SKS_ALWAYS_INLINE void world_store(float *rec, const world *w, int with_t)
{
    int c;
    vf_store(rec, w->q.x);
    vf_store(rec + SKS_W, w->q.y);
    vf_store(rec + 2 * SKS_W, w->q.z);
    vf_store(rec + 3 * SKS_W, w->q.w);
    if (!with_t) return;
    for (c = 0; c < 3; c++) vf_store(rec + (4 + c) * SKS_W, w->t[c]);
    vf_store(rec + 7 * SKS_W, w->s);
}

static SKS_ALWAYS_INLINE void world_load(world *w, const float *rec, int with_t)
{
    int c;
    w->q.x = vf_load(rec);
    w->q.y = vf_load(rec + SKS_W);
    w->q.z = vf_load(rec + 2 * SKS_W);
    w->q.w = vf_load(rec + 3 * SKS_W);
    if (!with_t) return;
    for (c = 0; c < 3; c++) w->t[c] = vf_load(rec + (4 + c) * SKS_W);
    w->s = vf_load(rec + 7 * SKS_W);
}

/* conj(a) * b. */
static SKS_ALWAYS_INLINE quat_soa conj_mul(quat_soa a, quat_soa b)
{
    a.x = vf_neg(a.x);
    a.y = vf_neg(a.y);
    a.z = vf_neg(a.z);
    return quat_soa_mul(a, b);
}

/* Wt[j] = ((M0 r0 + M1 r1) + M2 r2) + Wt[p], M = Ws[p] R(Wq[p]), r the rest translation. */
static SKS_ALWAYS_INLINE void child_translation(vf t[3], const world *par, const float *rest_t)
{
    vf m[9];
    const vf r0 = vf_set1(rest_t[0]), r1 = vf_set1(rest_t[1]), r2 = vf_set1(rest_t[2]);
    int i;
    quat_soa_scaled_rotation(m, par->q, par->s);
    for (i = 0; i < 3; i++) t[i] = row_dot3(m + 3 * i, r0, r1, r2, par->t[i]);
}

/* The source joint at p of the first `count` frames (`stride` floats apart): its quaternion,
 * and with `with_t` its translation (q and (t, s) of each frame loaded as one row of 8). */
static SKS_ALWAYS_INLINE void source_load(quat_soa *q, vf t[3], const float *p, ptrdiff_t stride,
                                          int with_t, size_t count)
{
    vf a[4], b[4];
    int k;
    if (!with_t) {
        *q = quat_soa_load_n(p, stride, count);
        return;
    }
    for (k = 0; k < 4; k++)
        vf_load_rows2_count(p + k * SKS_ROWS * stride, stride, &a[k], &b[k], quat_soa_rows_in(count, k));
    vf_transpose4_in_rows(&a[0], &a[1], &a[2], &a[3]);
    vf_transpose4_in_rows(&b[0], &b[1], &b[2], &b[3]);
    q->x = a[0];
    q->y = a[1];
    q->z = a[2];
    q->w = a[3];
    t[0] = b[0];
    t[1] = b[1];
    t[2] = b[2];
}

/* Joint rows of the first `count` frames at o (`stride` floats apart): the quaternions q (SoA)
 * and the (t, s) halves ts, already rows (vector k holds the frames of q's vector k). */
static SKS_ALWAYS_INLINE void joint_store(float *o, ptrdiff_t stride, quat_soa q, const vf ts[4],
                                          size_t count)
{
    vf_transpose4_in_rows(&q.x, &q.y, &q.z, &q.w);
    vf_store_rows2_count(o, stride, q.x, ts[0], quat_soa_rows_in(count, 0));
    vf_store_rows2_count(o + SKS_ROWS * stride, stride, q.y, ts[1], quat_soa_rows_in(count, 1));
    vf_store_rows2_count(o + 2 * SKS_ROWS * stride, stride, q.z, ts[2], quat_soa_rows_in(count, 2));
    vf_store_rows2_count(o + 3 * SKS_ROWS * stride, stride, q.w, ts[3], quat_soa_rows_in(count, 3));
}

/* An unmapped joint: its rest in every frame, and its world record when the plan asks. */
static SKS_ALWAYS_INLINE void unmapped_joint(float *o, ptrdiff_t os, float *rec, const float *recs,
                                             const float *r, int32_t p, unsigned code, size_t count)
{
    const vf rq = vf_broadcast_row(r), rts = vf_broadcast_row(r + 4);
    const int with_t = (code & NEED_T) != 0;
    world w, par;
    int k;
    for (k = 0; k < 4; k++)
        vf_store_rows2_count(o + k * SKS_ROWS * os, os, rq, rts, quat_soa_rows_in(count, k));
    if (!(code & NEED_W)) return;
    w.t[0] = w.t[1] = w.t[2] = w.s = vf_zero();   /* stored only when computed */
    if (p < 0) {
        w.q = quat_soa_splat(r);
        for (k = 0; k < 3; k++) w.t[k] = vf_set1(r[4 + k]);
        w.s = vf_set1(r[7]);
    } else {
        world_load(&par, recs + (size_t)p * REC, with_t);
        w.q = quat_soa_mul(par.q, quat_soa_splat(r));
        if (with_t) {
            child_translation(w.t, &par, r + 4);
            w.s = vf_mul(par.s, vf_set1(r[7]));
        }
    }
    world_store(rec, &w, with_t);
}

/* A mapped joint of the first `count` frames. */
static SKS_ALWAYS_INLINE void mapped_joint(float *o, ptrdiff_t os, const float *src, ptrdiff_t is,
                                           float *rec, const float *recs, const float *r,
                                           const float *offset, int32_t p, unsigned code,
                                           size_t count)
{
    const int placed = (code & PLACED) != 0, with_t = (code & NEED_T) != 0;
    quat_soa sq, oq;
    vf st[3], ts[4];
    world w, par;
    int k;
    w.t[0] = w.t[1] = w.t[2] = w.s = vf_zero();   /* stored only when computed */
    st[0] = st[1] = st[2] = vf_zero();
    source_load(&sq, st, src, is, placed, count);
    w.q = quat_soa_mul(sq, quat_soa_splat(offset));
    if (p < 0) {
        oq = w.q;
        if (with_t) {
            for (k = 0; k < 3; k++) w.t[k] = placed ? st[k] : vf_set1(r[4 + k]);
            w.s = vf_set1(r[7]);
        }
        if (placed) {
            ts[0] = st[0];
            ts[1] = st[1];
            ts[2] = st[2];
        }
    } else {
        world_load(&par, recs + (size_t)p * REC, placed || with_t);
        oq = conj_mul(par.q, w.q);
        if (placed) {
            vf m[9], d[3];
            quat_soa_scaled_rotation(m, par.q, vf_set1(1.0f));
            for (k = 0; k < 3; k++) d[k] = vf_sub(st[k], par.t[k]);
            for (k = 0; k < 3; k++)
                ts[k] = vf_div(vf_add(vf_add(vf_mul(m[k], d[0]), vf_mul(m[3 + k], d[1])),
                                      vf_mul(m[6 + k], d[2])),
                               par.s);
        }
        if (with_t) {
            if (placed) {
                w.t[0] = st[0];
                w.t[1] = st[1];
                w.t[2] = st[2];
            } else {
                child_translation(w.t, &par, r + 4);
            }
            w.s = vf_mul(par.s, vf_set1(r[7]));
        }
    }
    if (placed) {
        ts[3] = vf_set1(r[7]);
        vf_transpose4_in_rows(&ts[0], &ts[1], &ts[2], &ts[3]);
    } else {
        ts[0] = ts[1] = ts[2] = ts[3] = vf_broadcast_row(r + 4);
    }
    joint_store(o, os, oq, ts, count);
    if (code & NEED_W) world_store(rec, &w, with_t);
}

/* The remap of `count` <= SKS_W frames from frame f0 on; count is a constant in the main
 * instance. */
static SKS_ALWAYS_INLINE void remap_frames(const sks_retarget_args *a, const unsigned char *code,
                                           float *recs, size_t f0, size_t count)
{
    const ptrdiff_t os = (ptrdiff_t)(8 * a->targets), is = (ptrdiff_t)(8 * a->sources);
    float *out = a->out + (ptrdiff_t)f0 * os;
    const float *src = a->source + (ptrdiff_t)f0 * is;
    size_t j;
    for (j = 0; j < a->targets; j++) {
        const int32_t p = a->parents[j];
        const float *r = a->rest + 8 * j;
        float *rec = recs + j * REC;
        if (code[j] & MAPPED) {
            mapped_joint(out + 8 * j, os, src + 8 * (size_t)a->src_index[j], is, rec, recs, r,
                         a->offsets + 4 * j, p, code[j], count);
        } else {
            unmapped_joint(out + 8 * j, os, rec, recs, r, p, code[j], count);
        }
    }
}

static void remap(const sks_retarget_args *a)
{
    float *recs = (float *)(((uintptr_t)a->scratch + (SKS_RETARGET_SCRATCH_ALIGN - 1))
                            & ~(uintptr_t)(SKS_RETARGET_SCRATCH_ALIGN - 1));
    unsigned char *code = (unsigned char *)(recs + a->targets * 8 * SKS_RETARGET_MAX_LANES);
    size_t f = 0;
    make_plan(code, a);
    for (; f + SKS_W <= a->frames; f += SKS_W) remap_frames(a, code, recs, f, SKS_W);
    if (f < a->frames) remap_frames(a, code, recs, f, a->frames - f);
}

/* Blocks of 8 SKS_W floats: x * 0 is +-0 for finite x and NaN otherwise, and a sum of such
 * products is NaN exactly when one is; the block holding the first is then searched in order
 * (x - x != 0 for an infinity or NaN). */
static size_t first_nonfinite(const float *x, size_t n)
{
    const vf zero = vf_zero();
    size_t i = 0;
    int k;
    for (; i + 8 * SKS_W <= n; i += 8 * SKS_W) {
        vf acc[4], sum;
        for (k = 0; k < 4; k++)
            acc[k] = vf_add(vf_mul(vf_load(x + i + (size_t)k * SKS_W), zero),
                            vf_mul(vf_load(x + i + (size_t)(k + 4) * SKS_W), zero));
        sum = vf_add(vf_add(acc[0], acc[1]), vf_add(acc[2], acc[3]));
        if (vm_any(vf_unordered(sum, sum))) break;
    }
    for (; i < n; i++)
        if (x[i] - x[i] != 0.0f) return i;
    return n;
}

SKS_ROW(retarget) = {remap, first_nonfinite};
