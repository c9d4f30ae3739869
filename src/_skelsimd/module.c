/*
 * module.c -- the skelsimd._core extension module: run-time variant selection and the method
 * tables of every kernel family (each family's glue lives in its own file and exports one
 * PyMethodDef table, added here with PyModule_AddFunctions).
 *
 * Variant selection: the best variant the CPU supports is chosen when the module is imported
 * and stored in sks_active_isa; every kernel call reads that one int to index its family's
 * dispatch table (no CPU probing per call, no ISA branches inside loops). skelsimd/_isa.py
 * applies SKELSIMD_ISA right after import through _set_isa().
 */
#define SKS_GLUE_IMPORTS_ARRAY
#include "args.h"

#include <string.h>

int sks_active_isa = SKS_ISA_SCALAR;

/* One line per kernel family. */
extern PyMethodDef sks_joints_methods[];
extern PyMethodDef sks_mat4_methods[];
extern PyMethodDef sks_skinning_methods[];
extern PyMethodDef sks_skeleton_methods[];
extern int sks_skeleton_add_types(PyObject *module);
extern PyMethodDef sks_quat_methods[];
extern PyMethodDef sks_convert_methods[];
extern PyMethodDef sks_blend_methods[];
extern PyMethodDef sks_qts_methods[];
extern PyMethodDef sks_surface_methods[];
extern PyMethodDef sks_args_methods[];
extern PyMethodDef sks_compress_methods[];
extern PyMethodDef sks_mm_methods[];
extern int sks_compress_add_types(PyObject *module);

static PyObject *py_isa(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return PyUnicode_FromString(sks_isa_name((enum sks_isa)sks_active_isa));
}

static PyObject *isa_list(int only_supported)
{
    PyObject *list = PyList_New(0);
    int i;
    if (list == NULL) return NULL;
    for (i = 0; i < SKS_ISA_COUNT; i++) {
        if (!sks_isa_compiled((enum sks_isa)i)) continue;
        if (only_supported && !sks_cpu_supports((enum sks_isa)i)) continue;
        {
            PyObject *name = PyUnicode_FromString(sks_isa_name((enum sks_isa)i));
            if (name == NULL || PyList_Append(list, name) < 0) {
                Py_XDECREF(name);
                Py_DECREF(list);
                return NULL;
            }
            Py_DECREF(name);
        }
    }
    return list;
}

static PyObject *py_compiled_isas(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return isa_list(0);
}

static PyObject *py_supported_isas(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return isa_list(1);
}

static PyObject *py_best_isa(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return PyUnicode_FromString(sks_isa_name(sks_best_isa()));
}

/* _set_isa(name): make `name` the active variant. ValueError for an unknown name, RuntimeError
 * when this CPU or build lacks it. Not thread-safe against concurrent kernel calls: for tests,
 * benchmarks and start-up only. */
static PyObject *py_set_isa(PyObject *self, PyObject *arg)
{
    const char *name;
    int i;
    (void)self;
    if (!PyUnicode_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "isa: expected a str, got %s", Py_TYPE(arg)->tp_name);
        return NULL;
    }
    name = PyUnicode_AsUTF8(arg);
    if (name == NULL) return NULL;
    for (i = 0; i < SKS_ISA_COUNT; i++) {
        if (strcmp(name, sks_isa_name((enum sks_isa)i)) == 0) break;
    }
    if (i == SKS_ISA_COUNT) {
        PyErr_Format(PyExc_ValueError,
                     "unknown SIMD variant '%s'; expected one of: scalar, sse41, avx2, neon", name);
        return NULL;
    }
    if (!sks_cpu_supports((enum sks_isa)i)) {
        PyErr_Format(PyExc_RuntimeError,
                     "SIMD variant '%s' is not supported by this CPU or build (best available: "
                     "'%s')", name, sks_isa_name(sks_best_isa()));
        return NULL;
    }
    sks_active_isa = i;
    Py_RETURN_NONE;
}

static PyMethodDef core_methods[] = {
    {"isa", py_isa, METH_NOARGS, "isa() -> str: the name of the active SIMD variant."},
    {"compiled_isas", py_compiled_isas, METH_NOARGS,
     "compiled_isas() -> list[str]: the variants built into this extension."},
    {"supported_isas", py_supported_isas, METH_NOARGS,
     "supported_isas() -> list[str]: the compiled variants this CPU can run."},
    {"best_isa", py_best_isa, METH_NOARGS, "best_isa() -> str: the fastest supported variant."},
    {"_set_isa", py_set_isa, METH_O, "_set_isa(name): make `name` the active variant."},
    {NULL, NULL, 0, NULL}};

static int core_exec(PyObject *m)
{
    if (PyModule_AddFunctions(m, sks_joints_methods) < 0) return -1;
    if (PyModule_AddFunctions(m, sks_mat4_methods) < 0) return -1;
    if (PyModule_AddFunctions(m, sks_skinning_methods) < 0) return -1;
    if (PyModule_AddFunctions(m, sks_skeleton_methods) < 0) return -1;
    if (sks_skeleton_add_types(m) < 0) return -1;
    if (PyModule_AddFunctions(m, sks_quat_methods) < 0) return -1;
    if (PyModule_AddFunctions(m, sks_convert_methods) < 0) return -1;
    if (PyModule_AddFunctions(m, sks_blend_methods) < 0) return -1;
    if (PyModule_AddFunctions(m, sks_qts_methods) < 0) return -1;
    if (PyModule_AddFunctions(m, sks_surface_methods) < 0) return -1;
    if (PyModule_AddFunctions(m, sks_args_methods) < 0) return -1;
    if (PyModule_AddFunctions(m, sks_compress_methods) < 0 || sks_compress_add_types(m) < 0) return -1;
    if (PyModule_AddFunctions(m, sks_mm_methods) < 0) return -1;
    sks_active_isa = (int)sks_best_isa();
    return 0;
}

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "_core",
    "skelsimd._core: the C kernels (SIMD variants dispatched at run time) and their glue.", -1,
    core_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void)
{
    PyObject *m;
    import_array();
    m = PyModule_Create(&core_module);
    if (m == NULL) return NULL;
    if (core_exec(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
