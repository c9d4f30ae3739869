/*
 * mat4.c (glue) -- Python entry points of the 4x4 matrix family. The public wrappers with their
 * documentation are in skelsimd/mat4.py; kernels in src/kernels/mat4.c.
 *
 * Positional arguments only (the Python wrappers forward keywords):
 *   matmul4(a, b, out)
 *   mat4_local_to_global(local, parents, out, start, stop, precision)
 *   transform_points(m, points, out)
 */
#include "args.h"

#include "../kernels/mat4.h"

static const npy_intp mat4_shape[2] = {4, 4};

/* a (..., 4, 4) @ b (..., 4, 4) -> out (..., 4, 4), leading dims broadcast, out may be a or b. */
static const sks_signature matmul4_sig = {
    "matmul4", 2, {{"a", "(..., 4, 4)", 2, {4, 4}, 1}, {"b", "(..., 4, 4)", 2, {4, 4}, 1}},
    2, {4, 4}};

static PyObject *py_matmul4(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return sks_binary_call(&matmul4_sig, args, nargs, SKS_KERNELS(mat4)->matmul4);
}

/* The precision of the global matrices carried down the hierarchy (the output is float32). */
static const char *const precisions[] = {"float32", "float64", NULL};

/* The walk divided over the pool by characters: skeletons [begin, end) per chunk. */
typedef struct mat4_walk_job {
    const sks_mat4_kernels *k;
    const sks_walk_args *w;
    float *o;
    const float *x;
    double *scratch;    /* float64: SKS_MAT4_F64_SCRATCH_DOUBLES(stop) per slot */
} mat4_walk_job;

static void mat4_walk_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const mat4_walk_job *j = (const mat4_walk_job *)ctx;
    const sks_walk_args *w = j->w;
    const size_t skel = (size_t)w->joints * 16;
    if (j->scratch != NULL) {
        j->k->mat4_local_to_global_f64(j->o + begin * skel, j->x + begin * skel, w->parents.data,
                                       end - begin, (size_t)w->joints, (size_t)w->start,
                                       (size_t)w->stop,
                                       j->scratch + slot * SKS_MAT4_F64_SCRATCH_DOUBLES((size_t)w->stop));
    } else {
        j->k->mat4_local_to_global(j->o + begin * skel, j->x + begin * skel, w->parents.data,
                                   end - begin, (size_t)w->joints, (size_t)w->start,
                                   (size_t)w->stop, (size_t)w->batch);
    }
}

static PyObject *py_mat4_local_to_global(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    sks_walk_args w;
    mat4_walk_job j;
    sks_pool_plan plan;
    int precision;
    (void)self;
    if (!sks_check_nargs("mat4_local_to_global", nargs, 6)) return NULL;
    precision = sks_parse_choice(args[5], "precision", precisions, 0);
    if (precision < 0) return NULL;
    if (sks_parse_walk(&w, args, "local", mat4_shape, 2, "(..., J, 4, 4)") < 0) return NULL;
    j.k = SKS_KERNELS(mat4);
    j.w = &w;
    j.scratch = NULL;
    plan = sks_parallel_plan((size_t)w.batch, SKS_NS_WALK_JOINT * 1.5 * (double)(w.stop - w.start));
    if (precision == 1 && w.batch > 0 && w.stop > w.start) {
        j.scratch = sks_walk_scratch(&w, plan.slots * SKS_MAT4_F64_SCRATCH_DOUBLES((size_t)w.stop));
        if (j.scratch == NULL) return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    j.o = (float *)PyArray_DATA(w.out);
    j.x = (const float *)PyArray_DATA(w.in);
    sks_walk_prefill(&w);
    if (w.batch > 0 && w.stop > w.start) sks_pool_run(&plan, mat4_walk_chunk, &j);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(j.scratch);
    return sks_walk_finish(&w);
}

/* m (..., 3, 4) or (..., 4, 4) with points (..., 3) -> out (..., 3); out may be points. m's
 * block is checked here (two shapes), points' by the driver. */
static const sks_signature transform_sig = {
    "transform_points", 2,
    {{"m", "(..., 3, 4) or (..., 4, 4)", 2, {3, 4}, 0}, {"points", "(..., 3)", 1, {3}, 1}},
    1, {3}};

static PyObject *py_transform_points(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    sks_call c;
    npy_intp rows = 0;
    int ok = 0;
    (void)self;
    if (!sks_check_nargs("transform_points", nargs, 3)) return NULL;
    memset(c.ops, 0, sizeof c.ops);
    c.out = NULL;
    c.ops[0] = sks_as_float32(args[0], "m");
    if (c.ops[0] == NULL) goto done;
    {
        const int nd = PyArray_NDIM(c.ops[0]);
        if (nd >= 2) rows = PyArray_DIM(c.ops[0], nd - 2);
        if (nd < 2 || PyArray_DIM(c.ops[0], nd - 1) != 4 || (rows != 3 && rows != 4)) {
            /* fails: names both layouts */
            sks_check_shape(c.ops[0], "m", 2, transform_sig.in[0].block, 2,
                            transform_sig.in[0].layout);
            goto done;
        }
    }
    if (sks_call_operands(&c, &transform_sig, 2, args) < 0) goto done;
    if (sks_call_prepare(&c, &transform_sig, 2, args[2]) < 0) goto done;
    {
        const sks_mat4_kernels *k = SKS_KERNELS(mat4);
        sks_binary_run(&c, rows == 3 ? k->transform_points_3x4 : k->transform_points_4x4,
                       4 * rows, 3, 3);
    }
    ok = 1;
done:
    return sks_call_finish(&c, ok);
}

PyMethodDef sks_mat4_methods[] = {
    SKS_METHOD(matmul4, "(a, b, out)"),
    SKS_METHOD(mat4_local_to_global, "(local, parents, out, start, stop, precision)"),
    SKS_METHOD(transform_points, "(m, points, out)"),
    {NULL, NULL, 0, NULL}};
