/*
 * args.h -- the shared CPython/NumPy glue toolkit every kernel family uses.
 *
 * Rules it implements (../shared/design.md, "Python API rules"):
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

/* --- arguments ----------------------------------------------------------------------------- */

/* Fails with TypeError unless exactly `expected` positional arguments were passed. */
int sks_check_nargs(const char *func, Py_ssize_t nargs, Py_ssize_t expected);

/* Python truth value of obj as 0/1 (-1 on error); NULL or None count as `dflt`. */
int sks_parse_bool(PyObject *obj, const char *name, int dflt);

/* A C-contiguous, aligned, native float32 array holding obj's values (new reference).
 * Accepts bool, integer and real floating dtypes; anything else is a TypeError naming `name`. */
PyArrayObject *sks_as_float32(PyObject *obj, const char *name);

/* ValueError unless arr.ndim >= min_ndim and its last n_trailing dims equal `trailing`.
 * `layout` describes the expected shape for the message, e.g. "(..., J, 3, 4)". */
int sks_check_shape(PyArrayObject *arr, const char *name, int min_ndim, const npy_intp *trailing,
                    int n_trailing, const char *layout);

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
    const int32_t *data;     /* njoints validated parent indices */
    PyArrayObject *holder;   /* owns `data` (new reference); release with sks_parents_release */
} sks_parents;

/* Validates obj as the parents array of `njoints` joints: a 1-D integer array (list, tuple or
 * ndarray of any integer dtype) with -1 <= parents[j] < j. `joints_from` names where J came
 * from, for the message (e.g. "local.shape[-3]"). */
int sks_parse_parents(PyObject *obj, npy_intp njoints, const char *joints_from, sks_parents *out);
void sks_parents_release(sks_parents *p);

/* An index array into n items: a 1-D integer array (list, tuple or ndarray) of distinct values
 * 0 <= index[k] < n, in any order; `n_from` names where n came from (e.g. "joints.shape[-2]").
 * TypeError for a non-integer dtype, ValueError naming the first out-of-range or repeated entry.
 * Gives int32 indices owned by out->holder (release with sks_parents_release). */
int sks_parse_indices(PyObject *obj, const char *name, npy_intp n, const char *n_from,
                      sks_parents *out);

/* start/stop of a joint range: ints with 0 <= start <= stop <= njoints; stop None means njoints. */
int sks_parse_joint_range(PyObject *start_obj, PyObject *stop_obj, npy_intp njoints,
                          npy_intp *start, npy_intp *stop);

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

#endif /* SKS_ARGS_H */
