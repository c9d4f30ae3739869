/*
 * args.h -- the shared CPython/NumPy glue toolkit every kernel family uses.
 *
 * Rules it implements (README.md, "Conventions"):
 *   - inputs are array_like, converted once to C-contiguous aligned float32 (a copy only when
 *     needed); non-numeric dtypes are a TypeError naming the argument;
 *   - `out` must be a float32, C-contiguous, writeable ndarray of exactly the result shape
 *     (TypeError for type/dtype, ValueError for the rest); it may be exactly an input where the
 *     function documents in-place operation, never a partial overlap;
 *   - parents: 1-D integer, one entry per joint, -1 <= parents[j] < j; the first bad joint is
 *     named;
 *   - everything is validated before anything is written.
 * Every helper returns NULL / -1 with a Python exception set on failure.
 */
#ifndef SKS_ARGS_H
#define SKS_ARGS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL skelsimd_ARRAY_API
#ifndef SKS_GLUE_IMPORTS_ARRAY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <stdint.h>

#include "../kernels/cpu.h"

/* The active variant (enum sks_isa), chosen once at import; see module.c. */
extern int sks_active_isa;

/* Up to this many operands take part in one broadcast. */
#define SKS_MAX_OPERANDS 4

/* PyType_Ready(type) and module.name = type; 0, or -1 with an exception set. */
int sks_add_type(PyObject *module, PyTypeObject *type, const char *name);

/* --- arguments ----------------------------------------------------------------------------- */

/* Fails with TypeError unless exactly `expected` positional arguments were passed. */
int sks_check_nargs(const char *func, Py_ssize_t nargs, Py_ssize_t expected);

/* Python truth value of obj as 0/1 (-1 on error); NULL or None count as `dflt`. */
int sks_parse_bool(PyObject *obj, const char *name, int dflt);

/* A C-contiguous, aligned, native float32 array holding obj's values (new reference).
 * Accepts bool, integer and real floating dtypes; anything else is a TypeError naming `name`. */
PyArrayObject *sks_as_float32(PyObject *obj, const char *name);

/* The same with another element type: NPY_FLOAT32 or NPY_FLOAT64 (float64 inputs of the
 * measuring functions, such as clip_error and sample times). */
PyArrayObject *sks_as_real(PyObject *obj, const char *name, int typenum);

/* The layout of a one-operand kernel applied item by item: `in_name` (..., in_trailing) ->
 * out (..., out_trailing), with n_in and n_out trailing axes (1 or 2) and `layout` the input's
 * shape for messages, e.g. "(..., 3, 3)". */
typedef struct sks_unary_layout {
    const char *func, *in_name, *layout;
    int n_in;
    npy_intp in_trailing[2];
    int n_out;
    npy_intp out_trailing[2];
    int in_place;   /* out may be exactly `in` */
} sks_unary_layout;

/* The arrays of such a call: *in the float32 input (shape checked), *out the given out
 * (checked: shape, dtype, no partial overlap with the input) or a new array. Returns the
 * number of items (the product of the leading axes), or -1 with an exception set and both
 * pointers NULL. */
Py_ssize_t sks_prepare_unary(const sks_unary_layout *l, PyObject *in_obj, PyObject *out_obj,
                             PyArrayObject **in, PyArrayObject **out);

/* ValueError unless arr.ndim >= min_ndim and its last n_trailing dims equal `trailing`.
 * `layout` describes the expected shape for the message, e.g. "(..., J, 3, 4)". */
int sks_check_shape(PyArrayObject *arr, const char *name, int min_ndim, const npy_intp *trailing,
                    int n_trailing, const char *layout);

/* ValueError unless a result of `ndim` dimensions fits NumPy's limit (NPY_MAXDIMS): called
 * before any shape buffer of NPY_MAXDIMS entries is filled. `names` names the operands the
 * result's shape comes from, e.g. "q0, q1 and t". */
int sks_check_rank(int ndim, const char *names);

/* Writes "(d0, d1, ...)" into buf. */
void sks_format_shape(char *buf, size_t size, int ndim, const npy_intp *shape);

/* Index of the str obj in the NULL-terminated `choices` (NULL/None -> dflt). TypeError for a
 * non-str, ValueError naming the argument and listing the choices otherwise; -1 on error. */
int sks_parse_choice(PyObject *obj, const char *name, const char *const *choices, int dflt);

/* --- out ----------------------------------------------------------------------------------- */

/* out_obj None/NULL: a new uninitialised float32 array of `shape`. Otherwise out_obj itself
 * (new reference) after checking: ndarray and float32 (TypeError); C-contiguous, writeable,
 * exact shape (ValueError). */
PyArrayObject *sks_prepare_out(PyObject *out_obj, const char *name, int ndim,
                               const npy_intp *shape);

/* ValueError when the memory of `out` partially overlaps that of `in`. When both cover exactly
 * the same bytes it is accepted if allow_exact (documented in-place), refused otherwise. */
int sks_check_overlap(PyArrayObject *out, const char *out_name, PyArrayObject *in,
                      const char *in_name, int allow_exact);

/* --- hierarchies ----------------------------------------------------------------------------- */

typedef struct sks_parents {
    const int32_t *data;     /* `count` validated indices */
    PyArrayObject *holder;   /* a Skeleton's immutable parents (new reference) or NULL */
    int32_t *owned;          /* the private copy `data` points to (PyMem), or NULL */
    npy_intp count;
} sks_parents;

/* Validates obj as the parents array of `njoints` joints: a 1-D integer array (list, tuple or
 * ndarray of any integer dtype) with -1 <= parents[j] < j. `joints_from` names where J came
 * from, for the message (e.g. "local.shape[-3]"). njoints < 0 accepts any length.
 *
 * Thread safety: the kernels run with the GIL released, so another thread may change the
 * caller's array while they read it. Every value is therefore read once, into a private int32
 * copy (out->owned), and the copy is what is validated and what the kernel reads: a concurrent
 * change is either seen before the copy (and validated) or not at all. About 20 ns on a
 * 96-joint int32 array.
 *
 * A skelsimd.Skeleton (an instance of sks_skeleton_type) is accepted without re-validation and
 * without a copy: its parents were validated when it was built and live in an immutable bytes
 * object (not writeable, and NumPy refuses to make a view of it writeable), the joint count is
 * a C field no Python code can set, and out->holder keeps the array alive for the call. So only
 * its joint count is checked and its cached int32 array is used (a pointer read: per-call cost
 * ~0). */
int sks_parse_parents(PyObject *obj, npy_intp njoints, const char *joints_from, sks_parents *out);
void sks_parents_release(sks_parents *p);

/* The C base of skelsimd.Skeleton (type in skeleton.c): a validated, read-only, C-contiguous
 * int32 parents array (its memory belongs to an immutable bytes object, so NumPy refuses to
 * make it writeable again) and its length. */
typedef struct sks_skeleton_object {
    PyObject_HEAD
    PyArrayObject *parents;
    npy_intp njoints;
} sks_skeleton_object;

extern PyTypeObject sks_skeleton_type;

/* An index array into n items: a 1-D integer array (list, tuple or ndarray) of distinct values
 * 0 <= index[k] < n, in any order; `n_from` names where n came from (e.g. "joints.shape[-2]").
 * TypeError for a non-integer dtype, ValueError naming the first out-of-range or repeated entry.
 * Gives out->count int32 indices in a private copy (out->owned, validated after copying, as for
 * parents; release with sks_parents_release). */
int sks_parse_indices(PyObject *obj, const char *name, npy_intp n, const char *n_from,
                      sks_parents *out);

/* start/stop of a joint range: ints with 0 <= start <= stop <= njoints; stop None means njoints. */
int sks_parse_joint_range(PyObject *start_obj, PyObject *stop_obj, npy_intp njoints,
                          npy_intp *start, npy_intp *stop);

/* --- index arrays --------------------------------------------------------------------------- */

/* An integer array_like (any integer dtype; an empty list too) as a C-contiguous, aligned,
 * native int32 array (new reference; no copy when it already is one). TypeError naming `name`
 * for any other dtype; ValueError naming the first element outside the int32 range by its
 * index, e.g. "joint_indices[3, 1] = 4294967296: outside the int32 range". */
PyArrayObject *sks_as_int32(PyObject *obj, const char *name);

/* ValueError unless every value of the int32 C-contiguous array lies in [0, limit). The message
 * names the first offending element by its index and, when axis_names is not NULL (one name
 * per dimension), by those names too:
 *   "joint_indices[3, 1] = 97 (vertex 3, influence 1): expected 0 <= value < 96 (<limit_from>)". */
int sks_check_index_range(PyArrayObject *arr, const char *name, npy_intp limit,
                          const char *limit_from, const char *const *axis_names);

/* --- hierarchy walks ------------------------------------------------------------------------ */

/* The validated arguments of a hierarchy walk over a pose batch (..., J, <block>): the input as
 * float32, its parents, the joint range [start, stop) and `out` (allocated when None, else
 * checked; exactly the input is allowed, for in-place walks). */
typedef struct sks_walk_args {
    PyArrayObject *in, *out;    /* new references */
    sks_parents parents;
    npy_intp joints, batch;     /* J, and the number of skeletons (product of leading dims) */
    npy_intp start, stop;
    int out_is_new;             /* out was None: freshly allocated, uninitialised */
} sks_walk_args;

/* Parses (in_obj, parents_obj, out_obj, start_obj, stop_obj) for a walk whose joints are
 * blocks of shape `block` (block_ndim dims, e.g. {3, 4}); `layout` is the expected input shape
 * for messages, e.g. "(..., J, 3, 4)". On failure everything is released and -1 returned. */
int sks_parse_walk(sks_walk_args *w, PyObject *const *args, const char *in_name,
                   const npy_intp *block, int block_ndim, const char *layout);
void sks_walk_args_release(sks_walk_args *w);

/* The scratch of a float64 walk: `doubles` doubles from PyMem_RawMalloc (the caller frees it
 * with PyMem_RawFree after the kernel), or NULL with MemoryError set and `w` released. */
double *sks_walk_scratch(sks_walk_args *w, size_t doubles);

/* With out=None and a partial range, joints outside [start, stop) start as copies of the input,
 * so the result is a copy there (no Python calls: may run with the GIL released). */
void sks_walk_prefill(const sks_walk_args *w);

/* Releases the arguments and returns out (a new reference). */
PyObject *sks_walk_finish(sks_walk_args *w);

/* --- broadcasting of leading dimensions ---------------------------------------------------- */

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

/* --- two-operand kernels with broadcasting ---------------------------------------------------- */

/* out[i] = f(a[i * a_step], b[i * b_step]) for i < n, steps in blocks (0 or 1): the signature
 * of the kernels that broadcast two operands (multiply_joints, matmul4, transform_points). */
typedef void (*sks_binary_kernel)(float *out, const float *a, size_t a_step, const float *b,
                                  size_t b_step, size_t n);

typedef struct sks_binary {
    PyArrayObject *ops[2];   /* the float32 operands (new references, set by the caller) */
    PyArrayObject *out;      /* new reference */
    sks_broadcast bc;
} sks_binary;

/* Broadcasts w->ops (converted and shape-checked by the caller; trailing[k] block dims each),
 * prepares `out` of shape broadcast(...) + out_block, and refuses any overlap of out with an
 * operand except an exact alias of operand k when allow_exact[k]. */
int sks_binary_prepare(sks_binary *w, const char *const *names, const int *trailing,
                       PyObject *out_obj, const npy_intp *out_block, int out_block_ndim,
                       const int *allow_exact);

/* Runs `kernel` over the whole broadcast with the GIL released; blocks in floats. */
void sks_binary_run(const sks_binary *w, sks_binary_kernel kernel, npy_intp a_block,
                    npy_intp b_block, npy_intp out_block);

/* Releases the operands and returns out (ok) or releases everything and returns NULL. */
PyObject *sks_binary_finish(sks_binary *w, int ok);

/* The whole call func(a, b, out) of a kernel whose operands and result are matrices of one
 * shape `block` (2 dims, e.g. {3, 4}; `layout` "(..., 3, 4)" for messages), leading dims
 * broadcast, out may be exactly a or b: multiply_joints, matmul4. */
PyObject *sks_binary_matrices_call(PyObject *const *args, Py_ssize_t nargs, const char *func,
                                   const npy_intp *block, const char *layout,
                                   sks_binary_kernel kernel);

#endif /* SKS_ARGS_H */
