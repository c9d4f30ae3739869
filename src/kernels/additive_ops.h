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

/* The rotation a block's base rotations are multiplied by (quat_soa): from dq, the delta's
 * rotations, with a = |w| m_j per joint (item order); `subtract` (w < 0) a constant in each
 * instance. */
static SKS_ALWAYS_INLINE quat_soa delta_rotation(quat_soa dq, vf a, int subtract)
{
    const vf one = vf_set1(1.0f), sign = vf_set1(-0.0f);
    const vf flip = vf_and(sign, dq.w);
    quat_soa r;
    vf n2, inv;
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
    return r;
}

/* The additive step on the rotations of a block in registers: the base rotations *bq become
 * the result (delta_rotation's arguments). */
static SKS_ALWAYS_INLINE void apply_rotations(quat_soa *bq, quat_soa dq, vf a, int subtract)
{
    *bq = quat_soa_mul(*bq, delta_rotation(dq, a, subtract));
}

/* One vector of (t, s) halves in memory order (a row per joint; a, ws spread over the rows):
 * lanes 0-2 t + ws t_d, lane 3 s f or s / f with f = s_d a + (1 - a). */
static SKS_ALWAYS_INLINE vf ts_row(vf ts, vf d, vf a, vf ws, int subtract)
{
    const vf t = vf_add(ts, vf_mul(ws, d));
    const vf f = vf_add(vf_mul(d, a), vf_sub(vf_set1(1.0f), a));
    return vf_blend_in_rows(t, subtract ? vf_div(ts, f) : vf_mul(ts, f), 8);
}

/* The additive step on the (t, s) halves of n <= SKS_W joints in registers, in memory order
 * (quat_aos: no transposes); the delta's halves at dl (8 floats apart); a = |w| m_j and
 * ws = w m_j in item order, or the same in every lane when `uniform` (no mask). */
static SKS_ALWAYS_INLINE void apply_translations(quat_aos *ts, const float *dl, vf a, vf ws,
                                                 size_t n, int uniform, int subtract)
{
    const quat_aos d = quat_aos_load(dl, SKS_QTS_FLOATS, NULL, n);
#define TS_ROW(k)                                                                               \
    ts->v[k] = ts_row(ts->v[k], d.v[k], uniform ? a : vf_splat_in_rows(a, k),                  \
                      uniform ? ws : vf_splat_in_rows(ws, k), subtract)
    TS_ROW(0);
    TS_ROW(1);
    TS_ROW(2);
    TS_ROW(3);
#undef TS_ROW
}

/* apply_additive on n <= SKS_W joints of memory with the delta rotation r already formed
 * (delta_rotation): the rotations as quat_soa, the (t, s) halves in memory order. */
static SKS_ALWAYS_INLINE void apply_block(float *o, const float *b, const float *dl, quat_soa r,
                                          vf a, vf ws, size_t n, int uniform, int subtract)
{
    quat_soa bq = half_load(b, n);
    quat_aos ts = quat_aos_load(b + 4, SKS_QTS_FLOATS, NULL, n);
    bq = quat_soa_mul(bq, r);
    apply_translations(&ts, dl + 4, a, ws, n, uniform, subtract);
    half_store(o, bq, n);
    quat_aos_store(o + 4, SKS_QTS_FLOATS, NULL, &ts, n);
}

/* One pose (or a run of joints) with the mask at m (NULL: none). The full blocks are software
 * pipelined: block k + 1's delta rotation (its square root and division) is formed before
 * block k is finished, so the two dependency chains overlap; every value sees the same
 * operations. */
static SKS_ALWAYS_INLINE void apply_run(float *o, const float *b, const float *d, size_t njoints,
                                        float weight, const float *m, int subtract)
{
    const vf wa = vf_set1(subtract ? -weight : weight), w = vf_set1(weight);
    size_t j = 0;
#define BLOCK_A(j) (m ? vf_mul(wa, vf_load_items(m + (j))) : wa)
#define BLOCK_WS(j) (m ? vf_mul(w, vf_load_items(m + (j))) : w)
    if (njoints >= SKS_W) {
        vf a = BLOCK_A(0);
        quat_soa r = delta_rotation(half_load(d, SKS_W), a, subtract);
        for (; j + SKS_W <= njoints; j += SKS_W) {
            const vf aj = a;
            const quat_soa rj = r;
            if (j + 2 * SKS_W <= njoints) {
                a = BLOCK_A(j + SKS_W);
                r = delta_rotation(half_load(d + 8 * (j + SKS_W), SKS_W), a, subtract);
            }
            apply_block(o + 8 * j, b + 8 * j, d + 8 * j, rj, aj, BLOCK_WS(j), SKS_W, m == NULL,
                        subtract);
        }
    }
#undef BLOCK_A
#undef BLOCK_WS
    if (j < njoints) {
        const size_t n = njoints - j;
        const vf mv = m ? vf_load_items_n(m + j, n) : vf_set1(1.0f);
        const vf a = m ? vf_mul(wa, mv) : wa;
        const quat_soa r = delta_rotation(half_load(d + 8 * j, n), a, subtract);
        apply_block(o + 8 * j, b + 8 * j, d + 8 * j, r, a, m ? vf_mul(w, mv) : w, n, m == NULL,
                    subtract);
    }
}

#endif /* SKS_ADDITIVE_OPS_H */
