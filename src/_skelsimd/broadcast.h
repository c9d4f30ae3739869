/*
 * broadcast.h -- the leading (batch) dimensions of several operands broadcast by NumPy rules;
 * in broadcast.c.
 */
#ifndef SKS_BROADCAST_H
#define SKS_BROADCAST_H

#include "glue.h"

/* The leading ("batch") dimensions of several operands broadcast by NumPy rules, with the
 * trailing dimensions fixed per operand. Adjacent dimensions that every operand walks
 * contiguously are merged, so the common cases reduce to one dimension. Operands must be
 * C-contiguous. Strides are in blocks (one block = the operand's trailing part) and are 0 for
 * broadcast dimensions. */
typedef struct sks_broadcast {
    int nops;
    int ndim;                                   /* after merging; 0 for a single block */
    npy_intp shape[NPY_MAXDIMS];
    npy_intp strides[SKS_MAX_OPERANDS][NPY_MAXDIMS];
    int out_ndim;                               /* unmerged result leading shape */
    npy_intp out_shape[NPY_MAXDIMS];
} sks_broadcast;

/* trailing_ndims[k]: how many trailing dims of operand k are its block. ValueError naming the
 * operands when the leading shapes do not broadcast. */
int sks_broadcast_leading(sks_broadcast *bc, int nops, PyArrayObject *const *ops,
                          const char *const *names, const int *trailing_ndims);

/* Number of blocks in the innermost merged dimension, and of outer iterations. */
npy_intp sks_broadcast_inner(const sks_broadcast *bc);
npy_intp sks_broadcast_outer(const sks_broadcast *bc);

/* Block offsets of every operand at outer iteration `outer` (0 <= outer < sks_broadcast_outer),
 * and the inner step (0 or 1 blocks) of each operand in inner_step (may be NULL). */
void sks_broadcast_offsets(const sks_broadcast *bc, npy_intp outer, npy_intp *offsets,
                           npy_intp *inner_step);

#endif /* SKS_BROADCAST_H */
