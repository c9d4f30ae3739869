/*
 * call.h -- the drivers of kernel calls over broadcast operands, all three described the same
 * way: an sks_signature names the call, its operands (argument name, block of fixed trailing
 * dims, whether out may be exactly it) and the block of its result, whose shape is the
 * broadcast of the operands' leading dims followed by that block. In call.c.
 *
 *   one operand     sks_call_unary: in (..., block) -> out (..., out_block), item by item
 *                   (quat_conjugate, euler_to_quat, ...);
 *   two operands    sks_binary_call: the whole call func(a, b, out) of an sks_binary_kernel
 *                   (quat_multiply, multiply_joints, matmul4, ...);
 *   N operands      sks_call_operands + sks_call_prepare, then the family runs its kernel over
 *                   c.bc (slerp, nlerp: q0, q1 and t).
 *
 * Every driver checks in the same order: each operand converted to float32 and its shape
 * checked, then the broadcast of the leading dims, the result's rank, out, and the overlaps.
 */
#ifndef SKS_CALL_H
#define SKS_CALL_H

#include "glue.h"
#include "broadcast.h"

/* --- the signature of a call ---------------------------------------------------------------- */

/* The most fixed trailing dims of one operand or result. */
#define SKS_MAX_BLOCK 3

/* One array operand: its argument name, the expected shape for messages (`layout`, e.g.
 * "(..., 4)"), its block (the `ndim` fixed trailing dims, 0 to SKS_MAX_BLOCK; the leading
 * dims broadcast) and whether out may be exactly it (documented in-place operation). */
typedef struct sks_operand {
    const char *name, *layout;
    int ndim;
    npy_intp block[SKS_MAX_BLOCK];
    int in_place;
} sks_operand;

/* The call func(op0, ..., out): its operands and the block of its result. */
typedef struct sks_signature {
    const char *func;
    int nops;
    sks_operand in[SKS_MAX_OPERANDS];
    int out_ndim;
    npy_intp out_block[SKS_MAX_BLOCK];
} sks_signature;

/* The arrays of one call as the drivers prepare them. ops and out start NULL. */
typedef struct sks_call {
    PyArrayObject *ops[SKS_MAX_OPERANDS];   /* the float32 operands (new references) */
    PyArrayObject *out;                      /* new reference */
    sks_broadcast bc;                        /* the operands' leading dims (two or more) */
} sks_call;

/* The number of floats in a block of `ndim` dims. */
static inline size_t sks_block_floats(int ndim, const npy_intp *block)
{
    size_t n = 1;
    int d;
    for (d = 0; d < ndim; d++) n *= (size_t)block[d];
    return n;
}

/* Converts args[k], k < nops (nops <= sig->nops: a caller may take a trailing operand another
 * way, e.g. a scalar t), into c->ops[k] as float32, each shape checked right after its
 * conversion; an operand already set is left as it is (the caller converted and checked it,
 * e.g. transform_points' m of two shapes). 0, or -1 with an exception set. */
int sks_call_operands(sks_call *c, const sks_signature *sig, int nops, PyObject *const *args);

/* With c->ops[0..nops) set: broadcasts their leading dims (two or more operands; c->bc),
 * checks the result's rank, sets c->out (out_obj None: a new array, else checked) and refuses
 * any overlap of out with an operand but an exact alias of an in_place one. Returns the number
 * of result blocks, or -1 with an exception set. */
Py_ssize_t sks_call_prepare(sks_call *c, const sks_signature *sig, int nops, PyObject *out_obj);

/* Releases the operands and returns c->out (ok) or releases it too and returns NULL. */
PyObject *sks_call_finish(sks_call *c, int ok);

/* --- one operand ----------------------------------------------------------------------------- */

/* The arrays of a one-operand call (sig->nops == 1): *in the float32 input (shape checked), *out
 * the given out (checked: shape, dtype, no partial overlap with the input) or a new array.
 * Returns the number of items (the product of the leading axes), or -1 with an exception set
 * and both pointers NULL. */
Py_ssize_t sks_call_unary(const sks_signature *sig, PyObject *in_obj, PyObject *out_obj,
                          PyArrayObject **in, PyArrayObject **out);

/* The earlier description of a one-operand call, kept for glue written against it: `in_name`
 * (..., in_trailing) -> out (..., out_trailing), with n_in and n_out trailing axes (1 or 2) and
 * `layout` the input's shape for messages, e.g. "(..., 3, 3)". sks_prepare_unary is
 * sks_call_unary of the same signature. */
typedef struct sks_unary_layout {
    const char *func, *in_name, *layout;
    int n_in;
    npy_intp in_trailing[2];
    int n_out;
    npy_intp out_trailing[2];
    int in_place;   /* out may be exactly `in` */
} sks_unary_layout;

Py_ssize_t sks_prepare_unary(const sks_unary_layout *l, PyObject *in_obj, PyObject *out_obj,
                             PyArrayObject **in, PyArrayObject **out);

/* --- two operands ---------------------------------------------------------------------------- */

/* out[i] = f(a[i * a_step], b[i * b_step]) for i < n, steps in blocks (0 or 1): the signature
 * of the kernels that broadcast two operands (multiply_joints, matmul4, transform_points,
 * quat_multiply, quat_rotate). */
typedef void (*sks_binary_kernel)(float *out, const float *a, size_t a_step, const float *b,
                                  size_t b_step, size_t n);

/* The whole call func(a, b, out) (sig->nops == 2): nargs checked, operands converted and
 * checked, out prepared, `kernel` run with the GIL released, blocks of sig's sizes. */
PyObject *sks_binary_call(const sks_signature *sig, PyObject *const *args, Py_ssize_t nargs,
                          sks_binary_kernel kernel);

/* Runs `kernel` over the whole broadcast of c->ops[0] and c->ops[1] with the GIL released;
 * blocks in floats. */
void sks_binary_run(const sks_call *c, sks_binary_kernel kernel, npy_intp a_block,
                    npy_intp b_block, npy_intp out_block);

/* The items [begin, end) of a broadcast (outer x inner, in the order of the result) as pieces
 * within one outer iteration: fn(ctx, it, off, step, i0, i1, slot) for the items
 * it * inner + [i0, i1), with off and step of sks_broadcast_offsets(bc, it, ...). The chunk
 * function of a divided call over broadcast operands calls it with its range and slot. */
typedef void (*sks_piece_fn)(void *ctx, npy_intp it, const npy_intp *off, const npy_intp *step,
                             npy_intp i0, npy_intp i1, size_t slot);
void sks_broadcast_pieces(const sks_broadcast *bc, size_t begin, size_t end, sks_piece_fn fn,
                          void *ctx, size_t slot);

/* The earlier two-operand interface, kept for glue written against it: sks_binary is an
 * sks_call; sks_binary_prepare is sks_call_prepare of the signature its arrays describe,
 * sks_binary_finish is sks_call_finish, and sks_binary_matrices_call is sks_binary_call of
 * a matrix product whose operands and result are matrices of one shape `block` (2 dims), out
 * may be exactly a or b. */
typedef sks_call sks_binary;

int sks_binary_prepare(sks_binary *w, const char *const *names, const int *trailing,
                       PyObject *out_obj, const npy_intp *out_block, int out_block_ndim,
                       const int *allow_exact);
PyObject *sks_binary_finish(sks_binary *w, int ok);
PyObject *sks_binary_matrices_call(PyObject *const *args, Py_ssize_t nargs, const char *func,
                                   const npy_intp *block, const char *layout,
                                   sks_binary_kernel kernel);

#endif /* SKS_CALL_H */
