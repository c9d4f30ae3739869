/*
 * additive_ops.h -- the additive-layer block of apply_additive (formula and operation order in
 * additive.c's header comment), shared by the additive family (additive.c) and blend_layers'
 * fused additive layers (blend.c), so that both give the same bits. Included by family sources
 * after target.h and quat_ops.h; one copy per target translation unit.
 */
#ifndef SKS_ADDITIVE_OPS_H
#define SKS_ADDITIVE_OPS_H

#define ADD_NORM2_MIN 1e-30f

/* n <= SKS_W joints at p (8 floats apart): the quaternions or, at p + 4, the (t, s) halves. */
static SKS_ALWAYS_INLINE quat_soa half_load(const float *p, size_t n)
{
    return n == SKS_W ? quat_soa_load(p, SKS_QTS_FLOATS) : quat_soa_load_n(p, SKS_QTS_FLOATS, n);
}

static SKS_ALWAYS_INLINE void half_store(float *p, quat_soa q, size_t n)
{
    if (n == SKS_W) quat_soa_store(p, SKS_QTS_FLOATS, q);
    else quat_soa_store_n(p, SKS_QTS_FLOATS, q, n);
}

/* The additive step on a block in registers: the base rotations *bq and (t, s) halves *ts
 * become the result; dq, dts the delta's halves; per-joint factors a (|w| m_j) and ws (w m_j);
 * `subtract` (w < 0) a constant in each instance. */
static SKS_ALWAYS_INLINE void apply_regs(quat_soa *bq, quat_soa *ts, quat_soa dq, quat_soa dts,
                                         vf a, vf ws, int subtract)
{
    const vf one = vf_set1(1.0f), sign = vf_set1(-0.0f);
    const vf flip = vf_and(sign, dq.w);
    quat_soa r;
    vf n2, inv, f;
    vm ok;
    r.x = vf_mul(vf_xor(dq.x, flip), a);
    r.y = vf_mul(vf_xor(dq.y, flip), a);
    r.z = vf_mul(vf_xor(dq.z, flip), a);
    r.w = vf_add(vf_mul(vf_sub(vf_xor(dq.w, flip), one), a), one);
    n2 = quat_soa_dot(r, r);
    ok = vf_ge(n2, vf_set1(ADD_NORM2_MIN));
    inv = vf_div(one, vf_select(ok, vf_sqrt(n2), one));   /* one division per joint */
    r.x = vf_if(ok, vf_mul(r.x, inv));
    r.y = vf_if(ok, vf_mul(r.y, inv));
    r.z = vf_if(ok, vf_mul(r.z, inv));
    r.w = vf_select(ok, vf_mul(r.w, inv), one);
    if (subtract) {
        r.x = vf_neg(r.x);
        r.y = vf_neg(r.y);
        r.z = vf_neg(r.z);
    }
    *bq = quat_soa_mul(*bq, r);
    ts->x = vf_add(ts->x, vf_mul(ws, dts.x));
    ts->y = vf_add(ts->y, vf_mul(ws, dts.y));
    ts->z = vf_add(ts->z, vf_mul(ws, dts.z));
    f = vf_add(vf_mul(dts.w, a), vf_sub(one, a));
    ts->w = subtract ? vf_div(ts->w, f) : vf_mul(ts->w, f);
}

/* apply_additive on n <= SKS_W joints of memory (apply_regs between the loads and stores). */
static SKS_ALWAYS_INLINE void apply_block(float *o, const float *b, const float *dl, vf a, vf ws,
                                          size_t n, int subtract)
{
    quat_soa bq = half_load(b, n), ts = half_load(b + 4, n);
    apply_regs(&bq, &ts, half_load(dl, n), half_load(dl + 4, n), a, ws, subtract);
    half_store(o, bq, n);
    half_store(o + 4, ts, n);
}

/* One pose (or a run of joints) with the mask at m (NULL: none). */
static SKS_ALWAYS_INLINE void apply_run(float *o, const float *b, const float *d, size_t njoints,
                                        float weight, const float *m, int subtract)
{
    const vf wa = vf_set1(subtract ? -weight : weight), w = vf_set1(weight);
    size_t j;
    for (j = 0; j + SKS_W <= njoints; j += SKS_W) {
        const vf mv = m ? vf_load_items(m + j) : vf_set1(1.0f);
        apply_block(o + 8 * j, b + 8 * j, d + 8 * j, m ? vf_mul(wa, mv) : wa, m ? vf_mul(w, mv) : w,
                    SKS_W, subtract);
    }
    if (j < njoints) {
        const size_t n = njoints - j;
        const vf mv = m ? vf_load_items_n(m + j, n) : vf_set1(1.0f);
        apply_block(o + 8 * j, b + 8 * j, d + 8 * j, m ? vf_mul(wa, mv) : wa, m ? vf_mul(w, mv) : w,
                    n, subtract);
    }
}

#endif /* SKS_ADDITIVE_OPS_H */
