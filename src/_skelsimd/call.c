/*
 * call.c -- the drivers of one-, two- and N-operand kernel calls (see call.h).
 */
#include "args.h"

#include <stdio.h>
#include <string.h>

int sks_call_operands(sks_call *c, const sks_signature *sig, int nops, PyObject *const *args)
{
    int k;
    for (k = 0; k < nops; k++) {
        const sks_operand *op = &sig->in[k];
        if (c->ops[k] != NULL) continue;   /* converted and checked by the caller */
        c->ops[k] = sks_as_float32(args[k], op->name);
        if (c->ops[k] == NULL) return -1;
        if (op->ndim > 0 &&
            sks_check_shape(c->ops[k], op->name, op->ndim, op->block, op->ndim, op->layout) < 0)
            return -1;
    }
    return 0;
}

/* The rank error of a result from operands 0..nops: "a", "a and b", "a, b and c", ... */
static int rank_error(const sks_signature *sig, int nops, int ndim)
{
    char names[256];
    size_t used = 0;
    int k;
    names[0] = '\0';
    for (k = 0; k < nops && used < sizeof names; k++) {
        const char *sep = k == 0 ? "" : k == nops - 1 ? " and " : ", ";
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", sep, sig->in[k].name);
    }
    return sks_check_rank(ndim, names);
}

Py_ssize_t sks_call_prepare(sks_call *c, const sks_signature *sig, int nops, PyObject *out_obj)
{
    npy_intp shape[NPY_MAXDIMS];
    const npy_intp *lead_shape;
    Py_ssize_t items = 1;
    int lead, d, k;
    if (nops == 1) {
        lead = PyArray_NDIM(c->ops[0]) - sig->in[0].ndim;
        lead_shape = PyArray_DIMS(c->ops[0]);
    } else {
        const char *names[SKS_MAX_OPERANDS];
        int trailing[SKS_MAX_OPERANDS];
        for (k = 0; k < nops; k++) {
            names[k] = sig->in[k].name;
            trailing[k] = sig->in[k].ndim;
        }
        if (sks_broadcast_leading(&c->bc, nops, c->ops, names, trailing) < 0) return -1;
        lead = c->bc.out_ndim;
        lead_shape = c->bc.out_shape;
    }
    if (lead + sig->out_ndim > NPY_MAXDIMS) return rank_error(sig, nops, lead + sig->out_ndim);
    for (d = 0; d < lead; d++) {
        shape[d] = lead_shape[d];
        items *= (Py_ssize_t)shape[d];
    }
    for (d = 0; d < sig->out_ndim; d++) shape[lead + d] = sig->out_block[d];
    c->out = sks_prepare_out(out_obj, "out", lead + sig->out_ndim, shape);
    if (c->out == NULL) return -1;
    for (k = 0; k < nops; k++) {
        if (sks_check_overlap(c->out, "out", c->ops[k], sig->in[k].name, sig->in[k].in_place) < 0)
            return -1;
    }
    return items;
}

PyObject *sks_call_finish(sks_call *c, int ok)
{
    PyObject *result = ok ? (PyObject *)c->out : NULL;
    int k;
    if (!ok) Py_CLEAR(c->out);
    c->out = NULL;
    for (k = 0; k < SKS_MAX_OPERANDS; k++) Py_CLEAR(c->ops[k]);
    return result;
}

/* --- one operand ----------------------------------------------------------------------------- */

Py_ssize_t sks_call_unary(const sks_signature *sig, PyObject *in_obj, PyObject *out_obj,
                          PyArrayObject **in, PyArrayObject **out)
{
    sks_call c;
    Py_ssize_t items = -1;
    c.ops[0] = NULL;
    c.out = NULL;
    if (sks_call_operands(&c, sig, 1, &in_obj) == 0) items = sks_call_prepare(&c, sig, 1, out_obj);
    if (items < 0) {
        Py_CLEAR(c.ops[0]);
        Py_CLEAR(c.out);
    }
    *in = c.ops[0];
    *out = c.out;
    return items;
}

Py_ssize_t sks_prepare_unary(const sks_unary_layout *l, PyObject *in_obj, PyObject *out_obj,
                             PyArrayObject **in, PyArrayObject **out)
{
    sks_signature sig;
    sig.func = l->func;
    sig.nops = 1;
    sig.in[0].name = l->in_name;
    sig.in[0].layout = l->layout;
    sig.in[0].ndim = l->n_in;
    sig.in[0].block[0] = l->in_trailing[0];
    sig.in[0].block[1] = l->in_trailing[1];
    sig.in[0].in_place = l->in_place;
    sig.out_ndim = l->n_out;
    sig.out_block[0] = l->out_trailing[0];
    sig.out_block[1] = l->out_trailing[1];
    sig.in[0].block[2] = sig.out_block[2] = 0;
    return sks_call_unary(&sig, in_obj, out_obj, in, out);
}

/* --- two operands ---------------------------------------------------------------------------- */


PyObject *sks_binary_call(const sks_signature *sig, PyObject *const *args, Py_ssize_t nargs,
                          sks_binary_kernel kernel)
{
    sks_call c;
    int ok = 0;
    memset(c.ops, 0, sizeof c.ops);
    c.out = NULL;
    if (!sks_check_nargs(sig->func, nargs, 3)) return NULL;
    if (sks_call_operands(&c, sig, 2, args) == 0 && sks_call_prepare(&c, sig, 2, args[2]) >= 0) {
        sks_binary_run(&c, kernel, sks_block_floats(sig->in[0].ndim, sig->in[0].block),
                       sks_block_floats(sig->in[1].ndim, sig->in[1].block),
                       sks_block_floats(sig->out_ndim, sig->out_block));
        ok = 1;
    }
    return sks_call_finish(&c, ok);
}

void sks_broadcast_pieces(const sks_broadcast *bc, size_t begin, size_t end, sks_piece_fn fn,
                          void *ctx, size_t slot)
{
    const npy_intp inner = sks_broadcast_inner(bc);
    npy_intp it, i;
    if (inner <= 0 || end <= begin) return;
    it = (npy_intp)begin / inner;
    i = (npy_intp)begin % inner;
    while ((size_t)(it * inner + i) < end) {
        npy_intp off[SKS_MAX_OPERANDS] = {0}, step[SKS_MAX_OPERANDS] = {0};
        const npy_intp left = (npy_intp)end - it * inner;
        sks_broadcast_offsets(bc, it, off, step);
        fn(ctx, it, off, step, i, left < inner ? left : inner, slot);
        it++;
        i = 0;
    }
}

/* A two-operand call divided over the pool: each piece of a chunk is one kernel call. */
typedef struct binary_job {
    const sks_call *c;
    sks_binary_kernel kernel;
    float *o;
    const float *a, *b;
    npy_intp inner, a_block, b_block, out_block;
} binary_job;

static void binary_piece(void *ctx, npy_intp it, const npy_intp *off, const npy_intp *step,
                         npy_intp i0, npy_intp i1, size_t slot)
{
    const binary_job *j = (const binary_job *)ctx;
    (void)slot;
    j->kernel(j->o + (it * j->inner + i0) * j->out_block,
              j->a + (off[0] + i0 * step[0]) * j->a_block, (size_t)step[0],
              j->b + (off[1] + i0 * step[1]) * j->b_block, (size_t)step[1], (size_t)(i1 - i0));
}

static void binary_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const binary_job *j = (const binary_job *)ctx;
    sks_broadcast_pieces(&j->c->bc, begin, end, binary_piece, ctx, slot);
}

void sks_binary_run(const sks_call *c, sks_binary_kernel kernel, npy_intp a_block,
                    npy_intp b_block, npy_intp out_block)
{
    binary_job j;
    j.c = c;
    j.kernel = kernel;
    j.o = (float *)PyArray_DATA(c->out);
    j.a = (const float *)PyArray_DATA(c->ops[0]);
    j.b = (const float *)PyArray_DATA(c->ops[1]);
    j.inner = sks_broadcast_inner(&c->bc);
    j.a_block = a_block;
    j.b_block = b_block;
    j.out_block = out_block;
    if (PyArray_SIZE(c->out) == 0) return;
    Py_BEGIN_ALLOW_THREADS
    sks_parallel_for((size_t)(sks_broadcast_outer(&c->bc) * j.inner),
                     SKS_NS_OUT_FLOAT * (double)out_block, binary_chunk, &j);
    Py_END_ALLOW_THREADS
}

int sks_binary_prepare(sks_binary *w, const char *const *names, const int *trailing,
                       PyObject *out_obj, const npy_intp *out_block, int out_block_ndim,
                       const int *allow_exact)
{
    sks_signature sig;
    int k, d;
    if (out_block_ndim > SKS_MAX_BLOCK) {
        PyErr_SetString(PyExc_SystemError, "sks_binary_prepare: a result block of more than "
                        "SKS_MAX_BLOCK dims");
        return -1;
    }
    memset(&sig, 0, sizeof sig);
    sig.nops = 2;
    for (k = 0; k < 2; k++) {
        sig.in[k].name = names[k];
        sig.in[k].ndim = trailing[k];
        sig.in[k].in_place = allow_exact[k];
    }
    sig.out_ndim = out_block_ndim;
    for (d = 0; d < out_block_ndim; d++) sig.out_block[d] = out_block[d];
    return sks_call_prepare(w, &sig, 2, out_obj) < 0 ? -1 : 0;
}

PyObject *sks_binary_finish(sks_binary *w, int ok)
{
    return sks_call_finish(w, ok);
}

PyObject *sks_binary_matrices_call(PyObject *const *args, Py_ssize_t nargs, const char *func,
                                   const npy_intp *block, const char *layout,
                                   sks_binary_kernel kernel)
{
    const sks_signature sig = {func, 2,
                               {{"a", layout, 2, {block[0], block[1]}, 1},
                                {"b", layout, 2, {block[0], block[1]}, 1}},
                               2, {block[0], block[1]}};
    return sks_binary_call(&sig, args, nargs, kernel);
}
