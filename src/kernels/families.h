/*
 * families.h -- the kernel families written against the vector vocabulary: each source is
 * compiled once per target (setup.py reads the SKS_FAMILY lines; so does tests/native/build.py)
 * and dispatch.c collects their rows. A new family: add its line here and SKS_VARIANTS(name) in
 * dispatch.c, end its source with SKS_ROW(name) = {...}.
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
SKS_FAMILY(mm)
