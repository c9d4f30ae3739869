/*
 * surface.c (glue) -- Python entry points of the spring-grid surface family. The public class
 * with its documentation is skelsimd.Surface (skelsimd/surface.py), which owns the state buffer
 * and validates the user's arguments; kernels in src/kernels/surface.c.
 *
 * The state is one 1-D float32 buffer of SURFACE_PLANES planes, `plane` floats apart (see
 * surface_layout()). These private functions check the buffer against the grid they are given
 * (dtype, contiguity, size), so a wrong call raises instead of reading out of bounds.
 *
 * Positional arguments only:
 *   surface_layout() -> (pos, vel, ext, rest, inv_mass, pinned, planes)
 *   surface_step(buffer, rows, cols, plane, wrap, model, rest_step, mass_step,
 *                elasticity, damping, dt, n, gx, gy, gz, has_ext) -> None
 *   surface_normals(buffer, rows, cols, plane, wrap, out) -> out (3, rows, cols)
 *   surface_effectors(buffer, rows, cols, plane, wrap, centers (K, 3), radius (K,), strength (K,))
 *       -> reaction (K, 3) float32
 *   surface_add_force(buffer, rows, cols, plane, wrap, f (3,) or (3, rows, cols)) -> None
 */
#include "args.h"

#include "../kernels/surface.h"
#include "../kernels/surface_bands.h"

#include <math.h>

/* Plane indices in the state buffer. */
enum {
    PLANE_POS = 0,        /* x, y, z */
    PLANE_VEL = 3,        /* x, y, z */
    PLANE_EXT = 6,        /* x, y, z: external force of the next substep */
    PLANE_REST = 9,       /* 9 planes (offset model) or 3 (length model) */
    PLANE_INV_MASS = 18,
    PLANE_PINNED = 19,    /* rows*cols bytes */
    SURFACE_PLANES = 20
};

/* A minimum plane length, so that a uniform field (step 0) has 8 readable floats. */
#define MIN_PLANE 16

static int parse_size(PyObject *obj, const char *name, Py_ssize_t min, Py_ssize_t *value)
{
    const Py_ssize_t v = PyNumber_AsSsize_t(obj, PyExc_OverflowError);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < min) {
        PyErr_Format(PyExc_ValueError, "%s: expected an integer >= %zd, got %zd", name, min, v);
        return -1;
    }
    *value = v;
    return 0;
}

static int parse_float(PyObject *obj, const char *name, float *value)
{
    const double v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred()) return -1;
    (void)name;
    *value = (float)v;
    return 0;
}

/* Checks buffer (1-D float32, C-contiguous, writeable, SURFACE_PLANES planes) and the grid
 * (rows, cols >= 1, plane >= max(rows*cols, MIN_PLANE), a cylinder has >= 3 columns), and fills
 * the geometry and state pointers of *s. */
static int parse_grid(PyObject *const *args, sks_surface *s)
{
    Py_ssize_t rows, cols, plane, wrap;
    PyArrayObject *buf;
    float *base;
    if (!PyArray_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "buffer: expected a numpy.ndarray, got %s",
                     Py_TYPE(args[0])->tp_name);
        return -1;
    }
    buf = (PyArrayObject *)args[0];
    if (PyArray_TYPE(buf) != NPY_FLOAT32 || PyArray_NDIM(buf) != 1 ||
        !PyArray_IS_C_CONTIGUOUS(buf) || !PyArray_ISWRITEABLE(buf) || !PyArray_ISALIGNED(buf)) {
        PyErr_SetString(PyExc_TypeError,
                        "buffer: expected a 1-D, C-contiguous, aligned, writeable float32 array");
        return -1;
    }
    if (parse_size(args[1], "rows", 1, &rows) < 0 || parse_size(args[2], "cols", 1, &cols) < 0 ||
        parse_size(args[3], "plane", MIN_PLANE, &plane) < 0 ||
        parse_size(args[4], "wrap", 0, &wrap) < 0)
        return -1;
    if (cols > PY_SSIZE_T_MAX / rows || plane < rows * cols ||
        plane > PY_SSIZE_T_MAX / SURFACE_PLANES ||
        PyArray_SIZE(buf) < (npy_intp)plane * SURFACE_PLANES) {
        PyErr_Format(PyExc_ValueError,
                     "buffer: %zd floats do not hold %d planes of %zd floats for a %zd x %zd grid",
                     (Py_ssize_t)PyArray_SIZE(buf), SURFACE_PLANES, plane, rows, cols);
        return -1;
    }
    if (wrap && cols < 3) {
        PyErr_Format(PyExc_ValueError, "cols: a cylinder needs at least 3 columns, got %zd", cols);
        return -1;
    }
    base = (float *)PyArray_DATA(buf);
    s->rows = (size_t)rows;
    s->cols = (size_t)cols;
    s->plane = (size_t)plane;
    s->wrap = wrap != 0;
    s->model = SKS_SURFACE_OFFSET;
    s->pos = base + PLANE_POS * plane;
    s->vel = base + PLANE_VEL * plane;
    s->ext = base + PLANE_EXT * plane;
    s->rest = base + PLANE_REST * plane;
    s->rest_step = 1;
    s->inv_mass = base + PLANE_INV_MASS * plane;
    s->mass_step = 1;
    s->pinned = (const unsigned char *)(base + PLANE_PINNED * plane);
    return 0;
}

static PyObject *py_surface_layout(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return Py_BuildValue("(iiiiiii)", PLANE_POS, PLANE_VEL, PLANE_EXT, PLANE_REST, PLANE_INV_MASS,
                         PLANE_PINNED, SURFACE_PLANES);
}

/* Scratch for one call (row buffers); NULL with MemoryError set on failure. */
static float *scratch_for(size_t cols)
{
    float *scratch = (float *)PyMem_RawMalloc(sks_surface_scratch_floats(cols) * sizeof(float));
    if (scratch == NULL) PyErr_NoMemory();
    return scratch;
}

static PyObject *py_surface_step(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    sks_surface s;
    sks_surface_params p;
    Py_ssize_t model, rest_step, mass_step, n, has_ext;
    float *scratch;
    (void)self;
    if (!sks_check_nargs("surface_step", nargs, 16)) return NULL;
    if (parse_grid(args, &s) < 0) return NULL;
    if (parse_size(args[5], "model", 0, &model) < 0 ||
        parse_size(args[6], "rest_step", 0, &rest_step) < 0 ||
        parse_size(args[7], "mass_step", 0, &mass_step) < 0 ||
        parse_float(args[8], "elasticity", &p.elasticity) < 0 ||
        parse_float(args[9], "damping", &p.damping) < 0 || parse_float(args[10], "dt", &p.dt) < 0 ||
        parse_size(args[11], "n", 0, &n) < 0 ||
        parse_float(args[12], "gravity[0]", &p.gravity[0]) < 0 ||
        parse_float(args[13], "gravity[1]", &p.gravity[1]) < 0 ||
        parse_float(args[14], "gravity[2]", &p.gravity[2]) < 0 ||
        parse_size(args[15], "has_ext", 0, &has_ext) < 0)
        return NULL;
    if (model > SKS_SURFACE_LENGTH || rest_step > 1 || mass_step > 1) {
        PyErr_SetString(PyExc_ValueError, "surface_step: model must be 0 or 1, steps 0 or 1");
        return NULL;
    }
    s.model = (int)model;
    s.rest_step = (size_t)rest_step;
    s.mass_step = (size_t)mass_step;
    p.substeps = (size_t)n;
    p.has_ext = has_ext != 0;
    if (n == 0) Py_RETURN_NONE;
    {
        /* Divided over the pool by bands of rows when one group of substeps is large enough
         * (surface_bands.h); otherwise the plain step on this thread. */
        const sks_surface_kernels *k = SKS_KERNELS(surface);
        const sks_pool_plan plan = sks_surface_band_plan(s.rows, s.cols, p.substeps,
                                                         SKS_NS_SURFACE_VERTEX);
        if (plan.chunks > 1) {
            float *mem = (float *)PyMem_RawMalloc(
                sks_surface_divided_floats(&s, p.substeps, &plan) * sizeof(float));
            if (mem == NULL) return PyErr_NoMemory();
            Py_BEGIN_ALLOW_THREADS
            sks_surface_step_divided(k, &s, &p, &plan, mem);
            Py_END_ALLOW_THREADS
            PyMem_RawFree(mem);
            Py_RETURN_NONE;
        }
        scratch = scratch_for(s.cols);
        if (scratch == NULL) return NULL;
        Py_BEGIN_ALLOW_THREADS
        k->step(&s, &p, scratch);
        Py_END_ALLOW_THREADS
    }
    PyMem_RawFree(scratch);
    Py_RETURN_NONE;
}

static PyObject *py_surface_normals(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    sks_surface s;
    PyArrayObject *out;
    npy_intp shape[3];
    float *scratch;
    (void)self;
    if (!sks_check_nargs("surface_normals", nargs, 6)) return NULL;
    if (parse_grid(args, &s) < 0) return NULL;
    shape[0] = 3;
    shape[1] = (npy_intp)s.rows;
    shape[2] = (npy_intp)s.cols;
    out = sks_prepare_out(args[5], "out", 3, shape);
    if (out == NULL) return NULL;
    if (sks_check_overlap(out, "out", (PyArrayObject *)args[0], "the surface's state", 0) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    scratch = scratch_for(s.cols);
    if (scratch == NULL) {
        Py_DECREF(out);
        return NULL;
    }
    {
        const sks_surface_kernels *k = SKS_KERNELS(surface);
        float *o = (float *)PyArray_DATA(out);
        Py_BEGIN_ALLOW_THREADS
        k->normals(o, s.rows * s.cols, s.pos, s.plane, s.rows, s.cols, s.wrap, scratch);
        Py_END_ALLOW_THREADS
    }
    PyMem_RawFree(scratch);
    return (PyObject *)out;
}

static PyObject *py_surface_effectors(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const npy_intp three[1] = {3};
    sks_surface s;
    PyArrayObject *centers = NULL, *radius = NULL, *strength = NULL, *reaction = NULL;
    double *sums = NULL;
    npy_intp count, shape[2];
    (void)self;
    if (!sks_check_nargs("surface_effectors", nargs, 8)) return NULL;
    if (parse_grid(args, &s) < 0) return NULL;
    centers = sks_as_float32(args[5], "centers");
    if (centers == NULL) goto fail;
    if (PyArray_NDIM(centers) != 2 ||
        sks_check_shape(centers, "centers", 2, three, 1, "(K, 3)") < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "centers: expected shape (K, 3)");
        goto fail;
    }
    count = PyArray_DIM(centers, 0);
    radius = sks_as_float32(args[6], "radius");
    if (radius == NULL) goto fail;
    strength = sks_as_float32(args[7], "strength");
    if (strength == NULL) goto fail;
    if (PyArray_NDIM(radius) != 1 || PyArray_DIM(radius, 0) != count ||
        PyArray_NDIM(strength) != 1 || PyArray_DIM(strength, 0) != count) {
        PyErr_Format(PyExc_ValueError, "radius, strength: expected shape (%zd,)",
                     (Py_ssize_t)count);
        goto fail;
    }
    shape[0] = count;
    shape[1] = 3;
    reaction = (PyArrayObject *)PyArray_SimpleNew(2, shape, NPY_FLOAT32);
    if (reaction == NULL) goto fail;
    sums = (double *)PyMem_RawMalloc((size_t)(3 * count + 1) * sizeof(double));
    if (sums == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    {
        const sks_surface_kernels *k = SKS_KERNELS(surface);
        const float *c = (const float *)PyArray_DATA(centers);
        const float *rad = (const float *)PyArray_DATA(radius);
        const float *st = (const float *)PyArray_DATA(strength);
        float *r = (float *)PyArray_DATA(reaction);
        npy_intp i;
        Py_BEGIN_ALLOW_THREADS
        k->effectors(s.ext, sums, s.pos, s.plane, s.rows * s.cols, c, rad, st, (size_t)count);
        for (i = 0; i < 3 * count; i++) r[i] = (float)sums[i];
        Py_END_ALLOW_THREADS
    }
    PyMem_RawFree(sums);
    Py_DECREF(centers);
    Py_DECREF(radius);
    Py_DECREF(strength);
    return (PyObject *)reaction;
fail:
    Py_XDECREF(centers);
    Py_XDECREF(radius);
    Py_XDECREF(strength);
    Py_XDECREF(reaction);
    return NULL;
}

/* 1 when no value of v[0..n) is inf or NaN (an exponent-bits test the compiler vectorises). */
static int all_finite(const float *v, npy_intp n)
{
    uint32_t special = 0;
    npy_intp i;
    for (i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, v + i, sizeof bits);
        special |= (uint32_t)((bits & 0x7f800000u) == 0x7f800000u);
    }
    return special == 0;
}

/* ext += f for f of shape (3,) (every vertex) or (3, rows, cols) (per vertex), after checking
 * that every value of f is finite (ValueError naming `f`, nothing added). */
static PyObject *py_surface_add_force(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    sks_surface s;
    PyArrayObject *f;
    npy_intp n, i, count;
    int uniform;
    const float *v;
    (void)self;
    if (!sks_check_nargs("surface_add_force", nargs, 6)) return NULL;
    if (parse_grid(args, &s) < 0) return NULL;
    f = sks_as_float32(args[5], "f");
    if (f == NULL) return NULL;
    n = (npy_intp)(s.rows * s.cols);
    uniform = PyArray_NDIM(f) == 1 && PyArray_DIM(f, 0) == 3;
    if (!uniform &&
        !(PyArray_NDIM(f) == 3 && PyArray_DIM(f, 0) == 3 &&
          PyArray_DIM(f, 1) == (npy_intp)s.rows && PyArray_DIM(f, 2) == (npy_intp)s.cols)) {
        char got[128];
        sks_format_shape(got, sizeof got, PyArray_NDIM(f), PyArray_DIMS(f));
        PyErr_Format(PyExc_ValueError, "f: expected shape (3,) or (3, %zd, %zd), got %s",
                     (Py_ssize_t)s.rows, (Py_ssize_t)s.cols, got);
        Py_DECREF(f);
        return NULL;
    }
    v = (const float *)PyArray_DATA(f);
    count = uniform ? 3 : 3 * n;
    if (!all_finite(v, count)) {
        char value[32];
        for (i = 0; isfinite(v[i]); i++) {
        }
        snprintf(value, sizeof value, "%g", (double)v[i]);  /* PyErr_Format has no %g */
        PyErr_Format(PyExc_ValueError, "f: expected finite values, got %s at flat index %zd",
                     value, (Py_ssize_t)i);
        Py_DECREF(f);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    {
        int c;
        for (c = 0; c < 3; c++) {
            float *e = s.ext + (size_t)c * s.plane;
            if (uniform) {
                const float fc = v[c];
                for (i = 0; i < n; i++) e[i] += fc;
            } else {
                const float *fc = v + c * n;
                for (i = 0; i < n; i++) e[i] += fc[i];
            }
        }
    }
    Py_END_ALLOW_THREADS
    Py_DECREF(f);
    Py_RETURN_NONE;
}

PyMethodDef sks_surface_methods[] = {
    SKS_METHOD_DOC(surface_add_force, "surface_add_force(buffer, rows, cols, plane, wrap, f): "
                                      "see skelsimd.Surface.add_force"),
    {"surface_layout", py_surface_layout, METH_NOARGS,
     "surface_layout() -> (pos, vel, ext, rest, inv_mass, pinned, planes): plane indices"},
    SKS_METHOD_DOC(surface_step, "surface_step(buffer, rows, cols, plane, wrap, model, rest_step, "
                                 "mass_step, elasticity, damping, dt, n, gx, gy, gz, has_ext): "
                                 "see skelsimd.Surface.step"),
    SKS_METHOD_DOC(surface_normals, "surface_normals(buffer, rows, cols, plane, wrap, out): see "
                                    "skelsimd.Surface.normals"),
    SKS_METHOD_DOC(surface_effectors, "surface_effectors(buffer, rows, cols, plane, wrap, centers, "
                                      "radius, strength): see skelsimd.Surface.apply_effector"),
    {NULL, NULL, 0, NULL}};
