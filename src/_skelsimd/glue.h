/*
 * glue.h -- what every file of the CPython/NumPy glue includes first (through args.h): Python,
 * NumPy's C API and the CPU targets.
 * Every helper of the glue returns NULL / -1 with a Python exception set on failure.
 */
#ifndef SKS_GLUE_H
#define SKS_GLUE_H

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

/* Every name the glue declares from here on is internal to the extension module (only
 * PyInit__core, declared with PyMODINIT_FUNC, is exported): calls between the glue's files then
 * go straight to the function instead of through the PLT, a few ns of every call. */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility push(hidden)
#endif

/* The active variant (enum sks_isa), chosen once at import; see module.c. */
extern int sks_active_isa;

/* Up to this many operands take part in one broadcast. */
#define SKS_MAX_OPERANDS 4

/* PyType_Ready(type) and module.name = type; 0, or -1 with an exception set. */
int sks_add_type(PyObject *module, PyTypeObject *type, const char *name);

/* A row of a method table: the fast-call function py_<name> with docstring `doc`; SKS_METHOD
 * documents it as "<name><sig>: see skelsimd.<name>", the public wrapper that forwards to it. */
#define SKS_METHOD_DOC(name, doc)                                                              \
    {#name, (PyCFunction)(void (*)(void))py_##name, METH_FASTCALL, doc}
#define SKS_METHOD(name, sig) SKS_METHOD_DOC(name, #name sig ": see skelsimd." #name)

#endif /* SKS_GLUE_H */
