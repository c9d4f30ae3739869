/*
 * interop.h -- arrays of other libraries (PyTorch, JAX, anything with __dlpack__ or __array__)
 * and the conversions the Python layer shares with the glue; in interop.c.
 */
#ifndef SKS_INTEROP_H
#define SKS_INTEROP_H

#include "glue.h"

/* obj as an ndarray of its own dtype (new reference): obj itself when it is one; an array of
 * another library through DLPack (no copy) or __array__, refusing one that requires grad;
 * else NumPy's conversion of it. TypeError "<name>: expected <expected>, got <type>" when
 * NumPy cannot convert it. Every conversion of the glue starts here. */
PyArrayObject *sks_any_array(PyObject *obj, const char *name, const char *expected);

/* _as_array and _as_float32, for the Python wrappers (module.c adds them). */
extern PyMethodDef sks_interop_methods[];

#endif /* SKS_INTEROP_H */
