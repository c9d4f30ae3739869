/*
 * broadcast.c -- broadcasting of the leading dimensions of several operands (see
 * broadcast.h).
 */
#include "args.h"

#include <stdio.h>

int sks_broadcast_leading(sks_broadcast *bc, int nops, PyArrayObject *const *ops,
                          const char *const *names, const int *trailing_ndims)
{
    int k, d, nd = 0;
    npy_intp cstrides[SKS_MAX_OPERANDS][NPY_MAXDIMS];
    bc->nops = nops;
    for (k = 0; k < nops; k++) {
        const int lead = PyArray_NDIM(ops[k]) - trailing_ndims[k];
        if (lead > nd) nd = lead;
    }
    for (d = 0; d < nd; d++) bc->out_shape[d] = 1;
    /* result shape, right-aligned */
    for (k = 0; k < nops; k++) {
        const int lead = PyArray_NDIM(ops[k]) - trailing_ndims[k];
        for (d = 0; d < lead; d++) {
            const npy_intp n = PyArray_DIM(ops[k], d);
            npy_intp *r = &bc->out_shape[nd - lead + d];
            if (n == *r || n == 1) continue;
            if (*r == 1) {
                *r = n;
                continue;
            }
            {
                char s0[256], s1[256];
                int k0;
                for (k0 = 0; k0 < k; k0++) {
                    const int lead0 = PyArray_NDIM(ops[k0]) - trailing_ndims[k0];
                    const int d0 = d + (nd - lead) - (nd - lead0);
                    if (d0 >= 0 && d0 < lead0 && PyArray_DIM(ops[k0], d0) != 1 &&
                        PyArray_DIM(ops[k0], d0) != n)
                        break;
                }
                if (k0 == k) k0 = 0;
                sks_format_shape(s0, sizeof s0,
                                 PyArray_NDIM(ops[k0]) - trailing_ndims[k0], PyArray_DIMS(ops[k0]));
                sks_format_shape(s1, sizeof s1, lead, PyArray_DIMS(ops[k]));
                PyErr_Format(PyExc_ValueError,
                             "%s and %s: leading (batch) shapes %s and %s do not broadcast",
                             names[k0], names[k], s0, s1);
                return -1;
            }
        }
    }
    bc->out_ndim = nd;
    /* block strides of each operand, 0 where broadcast */
    for (k = 0; k < nops; k++) {
        const int lead = PyArray_NDIM(ops[k]) - trailing_ndims[k];
        npy_intp s = 1;
        for (d = nd - 1; d >= 0; d--) {
            const int dk = d - (nd - lead);
            if (dk < 0 || PyArray_DIM(ops[k], dk) == 1) {
                cstrides[k][d] = 0;
            } else {
                cstrides[k][d] = s;
                s *= PyArray_DIM(ops[k], dk);
            }
        }
    }
    /* merge dimension d into d+1 when every operand walks them as one */
    bc->ndim = 0;
    for (d = 0; d < nd; d++) {
        if (bc->out_shape[d] == 1) continue; /* drop unit dims */
        if (bc->ndim > 0) {
            const int m = bc->ndim - 1;
            int mergeable = 1;
            for (k = 0; k < nops; k++) {
                if (bc->strides[k][m] != cstrides[k][d] * bc->out_shape[d]) mergeable = 0;
            }
            if (mergeable) {
                bc->shape[m] *= bc->out_shape[d];
                for (k = 0; k < nops; k++) bc->strides[k][m] = cstrides[k][d];
                continue;
            }
        }
        bc->shape[bc->ndim] = bc->out_shape[d];
        for (k = 0; k < nops; k++) bc->strides[k][bc->ndim] = cstrides[k][d];
        bc->ndim++;
    }
    return 0;
}

npy_intp sks_broadcast_inner(const sks_broadcast *bc)
{
    return bc->ndim ? bc->shape[bc->ndim - 1] : 1;
}

npy_intp sks_broadcast_outer(const sks_broadcast *bc)
{
    npy_intp n = 1;
    int d;
    for (d = 0; d + 1 < bc->ndim; d++) n *= bc->shape[d];
    return n;
}

void sks_broadcast_offsets(const sks_broadcast *bc, npy_intp outer, npy_intp *offsets,
                           npy_intp *inner_step)
{
    int k, d;
    for (k = 0; k < bc->nops; k++) {
        offsets[k] = 0;
        if (inner_step) inner_step[k] = bc->ndim ? bc->strides[k][bc->ndim - 1] : 0;
    }
    for (d = bc->ndim - 2; d >= 0; d--) {
        const npy_intp i = outer % bc->shape[d];
        outer /= bc->shape[d];
        for (k = 0; k < bc->nops; k++) offsets[k] += i * bc->strides[k][d];
    }
}
