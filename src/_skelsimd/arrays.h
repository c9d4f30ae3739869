/*
 * arrays.h -- inputs as float32 or int32 arrays, their shapes, `out` and overlaps; in arrays.c.
 */
#ifndef SKS_ARRAYS_H
#define SKS_ARRAYS_H

#include "glue.h"

/* A C-contiguous, aligned, native float32 array holding obj's values (new reference).
 * Accepts bool, integer and real floating dtypes; anything else is a TypeError naming `name`. */
PyArrayObject *sks_as_float32(PyObject *obj, const char *name);

/* The same with another element type: NPY_FLOAT32 or NPY_FLOAT64 (float64 inputs of the
 * measuring functions, such as clip_error and sample times). */
PyArrayObject *sks_as_real(PyObject *obj, const char *name, int typenum);

/* ValueError unless arr.ndim >= min_ndim and its last n_trailing dims equal `trailing`.
 * `layout` describes the expected shape for the message, e.g. "(..., J, 3, 4)". */
int sks_check_shape(PyArrayObject *arr, const char *name, int min_ndim, const npy_intp *trailing,
                    int n_trailing, const char *layout);

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

/* TypeError "<name>: expected <expected>, got dtype <dtype>". */
void sks_wrong_dtype(const char *name, PyArray_Descr *d, const char *expected);

#endif /* SKS_ARRAYS_H */
