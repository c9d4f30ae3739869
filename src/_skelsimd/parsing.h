/*
 * parsing.h -- plain arguments (counts, truth values, choices, joint ranges), the rank limit and
 * the shapes of messages; in parsing.c.
 */
#ifndef SKS_PARSING_H
#define SKS_PARSING_H

#include "glue.h"

/* --- arguments ----------------------------------------------------------------------------- */

/* Fails with TypeError unless exactly `expected` positional arguments were passed. */
int sks_check_nargs(const char *func, Py_ssize_t nargs, Py_ssize_t expected);

/* The arguments of a METH_FASTCALL | METH_KEYWORDS function: vals[i] gets the argument called
 * names[i] (NULL when absent). At most `positional` of the `count` may be passed by position
 * (the rest are keyword-only); the first `required` are required. TypeError naming the
 * function and the argument otherwise, as Python's own calls word it; -1 on error. */
int sks_method_args(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                    const char *const *names, int count, int positional, int required,
                    PyObject **vals);

/* Python truth value of obj as 0/1 (-1 on error); NULL or None count as `dflt`. */
int sks_parse_bool(PyObject *obj, const char *name, int dflt);

/* ValueError unless a result of `ndim` dimensions fits NumPy's limit (NPY_MAXDIMS): called
 * before any shape buffer of NPY_MAXDIMS entries is filled. `names` names the operands the
 * result's shape comes from, e.g. "q0, q1 and t". */
int sks_check_rank(int ndim, const char *names);

/* Writes "(d0, d1, ...)" into buf. */
void sks_format_shape(char *buf, size_t size, int ndim, const npy_intp *shape);

/* Index of the str obj in the NULL-terminated `choices` (NULL/None -> dflt). TypeError for a
 * non-str, ValueError naming the argument and listing the choices otherwise; -1 on error. */
int sks_parse_choice(PyObject *obj, const char *name, const char *const *choices, int dflt);

/* start/stop of a joint range: ints with 0 <= start <= stop <= njoints; stop None means njoints. */
int sks_parse_joint_range(PyObject *start_obj, PyObject *stop_obj, npy_intp njoints,
                          npy_intp *start, npy_intp *stop);

#endif /* SKS_PARSING_H */
