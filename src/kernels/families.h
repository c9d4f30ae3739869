/*
 * families.h -- the list of kernel families, written once. A new family is one line here:
 *
 *     SKS_FAMILY(name)
 *
 * with src/kernels/<name>.c written against the vector vocabulary and ending with its table
 * row, SKS_ROW(name) = {...}; src/kernels/<name>.h declaring `typedef struct
 * sks_<name>_kernels {...} sks_<name>_kernels` and `extern const sks_<name>_kernels *const
 * sks_<name>_variants[SKS_ISA_COUNT]`; and its glue src/_skelsimd/<name>.c exporting
 * `PyMethodDef sks_<name>_methods[]`. Nothing else lists the families:
 *   - setup.py compiles <name>.c once per target (it reads the SKS_FAMILY lines of this file;
 *     so does tests/native/build.py, which also expects tests/native/check_<name>.c);
 *   - src/kernels/dispatch.c expands this list into sks_<name>_variants[];
 *   - src/_skelsimd/module.c expands it into the module's functions (sks_<name>_methods);
 *   - tests/native/check_main.c expands it into the table of native checks.
 *
 * An X-macro list: no include guard; whoever includes it defines SKS_FAMILY(name) first.
 */
SKS_FAMILY(joints)
SKS_FAMILY(quat)
SKS_FAMILY(surface)
SKS_FAMILY(blend)
SKS_FAMILY(convert)
SKS_FAMILY(compress)
SKS_FAMILY(mat4)
SKS_FAMILY(skinning)
SKS_FAMILY(qts)
SKS_FAMILY(additive)
SKS_FAMILY(ik)
SKS_FAMILY(track)
SKS_FAMILY(mm)
SKS_FAMILY(inertialize)
SKS_FAMILY(retarget)
