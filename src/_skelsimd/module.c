/*
 * module.c -- the skelsimd._core extension module: run-time variant selection and the method
 * tables of every kernel family (each family's glue lives in its own file, named like the
 * family, and exports one PyMethodDef table, sks_<family>_methods; the list of families is
 * src/kernels/families.h, expanded here).
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
/* 1 when sks_active_isa was chosen automatically (at import or as "auto"): then a family that
 * measured slower on it runs its faster variant (sks_dispatch_select, dispatch.c). */
static int sks_isa_automatic = 0;

static void select_isa(int isa, int automatic)
{
    sks_active_isa = isa;
    sks_isa_automatic = automatic;
    sks_dispatch_select((enum sks_isa)isa, automatic);
}

/* Every kernel family's glue exports sks_<family>_methods (families.h lists the families). */
#define SKS_FAMILY(family) extern PyMethodDef sks_##family##_methods[];
#include "../kernels/families.h"
#undef SKS_FAMILY

/* The glue of no kernel family: skeleton.c (the Skeleton type, BVH import) and interop.c
 * (sks_interop_methods, declared in interop.h); the C base types of Skeleton and CompressedClip. */
extern PyMethodDef sks_skeleton_methods[];
extern int sks_skeleton_add_types(PyObject *module);
extern int sks_compress_add_types(PyObject *module);
extern PyMethodDef sks_additive_methods[];
extern PyMethodDef sks_ik_methods[];
extern PyMethodDef sks_track_methods[];

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

/* _set_isa(name): make `name` the active variant of every family ("auto": the best variant, with
 * the per-family exceptions of dispatch.c, as at import). ValueError for an unknown name,
 * RuntimeError when this CPU or build lacks it. Not thread-safe against concurrent kernel calls:
 * for tests, benchmarks and start-up only. */
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
    if (strcmp(name, "auto") == 0) {
        select_isa((int)sks_best_isa(), 1);
        Py_RETURN_NONE;
    }
    for (i = 0; i < SKS_ISA_COUNT; i++) {
        if (strcmp(name, sks_isa_name((enum sks_isa)i)) == 0) break;
    }
    if (i == SKS_ISA_COUNT) {
        PyErr_Format(PyExc_ValueError,
                     "unknown SIMD variant '%s'; expected one of: scalar, sse41, avx2, avx512, "
                     "neon, auto", name);
        return NULL;
    }
    if (!sks_cpu_supports((enum sks_isa)i)) {
        PyErr_Format(PyExc_RuntimeError,
                     "SIMD variant '%s' is not supported by this CPU or build%s (best available: "
                     "'%s')", name,
                     i == SKS_ISA_AVX512 && sks_isa_compiled(SKS_ISA_AVX512)
                         ? " (it needs AVX-512 F, BW, DQ and VL, and an OS that saves the "
                           "opmask and ZMM registers)"
                         : "",
                     sks_isa_name(sks_best_isa()));
        return NULL;
    }
    select_isa(i, 0);
    Py_RETURN_NONE;
}

static PyObject *py_isa_automatic(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return PyBool_FromLong(sks_isa_automatic);
}

/* dispatch_table(): {family: variant} of the kernel families, the variant each runs now. */
static PyObject *py_dispatch_table(PyObject *self, PyObject *noargs)
{
    PyObject *table = PyDict_New();
    int f;
    (void)self;
    (void)noargs;
    if (table == NULL) return NULL;
    for (f = 0; f < SKS_FAMILY_COUNT; f++) {
        PyObject *isa = PyUnicode_FromString(sks_isa_name((enum sks_isa)sks_family_isa[f]));
        if (isa == NULL || PyDict_SetItemString(table, sks_dispatch_family_name(f), isa) < 0) {
            Py_XDECREF(isa);
            Py_DECREF(table);
            return NULL;
        }
        Py_DECREF(isa);
    }
    return table;
}

/* _set_num_threads(n): the thread count of divided calls (n >= 1, checked by the caller,
 * skelsimd/parallel.py, which also reads SKELSIMD_NUM_THREADS). */
static PyObject *py_set_num_threads(PyObject *self, PyObject *arg)
{
    const long n = PyLong_AsLong(arg);
    (void)self;
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 1 || n > SKS_POOL_MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "n: expected an integer from 1 to %d, got %ld",
                     SKS_POOL_MAX_THREADS, n);
        return NULL;
    }
    sks_pool_set_threads((int)n);
    Py_RETURN_NONE;
}

static PyObject *py_get_num_threads(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return PyLong_FromLong(sks_pool_get_threads());
}

static PyObject *py_available_cpus(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return PyLong_FromLong(sks_pool_available_cpus());
}

static PyObject *py_pool_workers(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return PyLong_FromLong(sks_pool_workers());
}

/* _set_thread_limit(n): this thread's own limit on the threads of its calls (0: none). */
static PyObject *py_set_thread_limit(PyObject *self, PyObject *arg)
{
    const long n = PyLong_AsLong(arg);
    (void)self;
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 0 || n > SKS_POOL_MAX_THREADS) {
        PyErr_Format(PyExc_ValueError, "n: expected an integer from 0 to %d, got %ld",
                     SKS_POOL_MAX_THREADS, n);
        return NULL;
    }
    sks_pool_set_thread_limit((int)n);
    Py_RETURN_NONE;
}

static PyObject *py_get_thread_limit(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return PyLong_FromLong(sks_pool_get_thread_limit());
}

static PyObject *py_pool_divided_calls(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return PyLong_FromUnsignedLong(sks_pool_divided_calls());
}

static PyMethodDef core_methods[] = {
    {"isa", py_isa, METH_NOARGS, "isa() -> str: the name of the active SIMD variant."},
    {"compiled_isas", py_compiled_isas, METH_NOARGS,
     "compiled_isas() -> list[str]: the variants built into this extension."},
    {"supported_isas", py_supported_isas, METH_NOARGS,
     "supported_isas() -> list[str]: the compiled variants this CPU can run."},
    {"best_isa", py_best_isa, METH_NOARGS, "best_isa() -> str: the fastest supported variant."},
    {"_set_isa", py_set_isa, METH_O, "_set_isa(name): make `name` the active variant."},
    {"_isa_automatic", py_isa_automatic, METH_NOARGS,
     "_isa_automatic() -> bool: whether the active variant was chosen automatically."},
    {"dispatch_table", py_dispatch_table, METH_NOARGS,
     "dispatch_table() -> dict[str, str]: the variant each kernel family runs now."},
    {"_set_num_threads", py_set_num_threads, METH_O,
     "_set_num_threads(n): the thread count of large calls; see skelsimd.set_num_threads."},
    {"_get_num_threads", py_get_num_threads, METH_NOARGS,
     "_get_num_threads() -> int: the thread count of large calls."},
    {"_available_cpus", py_available_cpus, METH_NOARGS,
     "_available_cpus() -> int: the CPUs this process may run on (its affinity mask)."},
    {"_pool_workers", py_pool_workers, METH_NOARGS,
     "_pool_workers() -> int: the pool's worker threads started so far (0 in a fresh child)."},
    {"_set_thread_limit", py_set_thread_limit, METH_O,
     "_set_thread_limit(n): this thread's own limit on the threads of its calls (0: none)."},
    {"_get_thread_limit", py_get_thread_limit, METH_NOARGS,
     "_get_thread_limit() -> int: this thread's own limit (0: none)."},
    {"_pool_divided_calls", py_pool_divided_calls, METH_NOARGS,
     "_pool_divided_calls() -> int: calls divided into several chunks so far."},
    {NULL, NULL, 0, NULL}};

static int core_exec(PyObject *m)
{
#define SKS_FAMILY(family) if (PyModule_AddFunctions(m, sks_##family##_methods) < 0) return -1;
#include "../kernels/families.h"
#undef SKS_FAMILY
    if (PyModule_AddFunctions(m, sks_skeleton_methods) < 0) return -1;
    if (PyModule_AddFunctions(m, sks_interop_methods) < 0) return -1;
    if (sks_skeleton_add_types(m) < 0 || sks_compress_add_types(m) < 0) return -1;
    select_isa((int)sks_best_isa(), 1);
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
