"""skelsimd on Dask: large batches on dask arrays and motion datasets to Zarr.

Needs the optional extra ``pip install 'skelsimd[dask]'`` (dask[array], distributed, zarr 3,
tqdm); ``import skelsimd`` itself never imports any of them.

* The batched kernels on dask arrays (:mod:`skelsimd.dask.arrays`): ``local_to_global``,
  ``global_to_local``, ``multiply_joints``, ``invert_joints``, ``qts_local_to_global``,
  ``qts_local_to_global_matrix``, ``mat4_local_to_global``, ``matmul4``, ``transform_points``,
  ``skinning_palette``, ``skin``, ``slerp``, ``nlerp``, ``blend_joints``, ``blend_layers``:
  the in-memory signatures, lazy dask arrays out, bit-identical to the in-memory calls.
* The dataset pipeline (:mod:`skelsimd.dask.dataset`): a directory or glob of BVH files (and
  compressed clips, ``.skc``) ->
  a dask bag of clips -> a pluggable list of per-clip steps -> one Zarr group per clip
  (``build_dataset``; ``python -m skelsimd dataset IN_DIR --out OUT.zarr``).
"""
from .arrays import (RechunkWarning, blend_joints, blend_layers, global_to_local,  # noqa: F401
                     invert_joints, local_to_global, mat4_local_to_global, matmul4,
                     multiply_joints, nlerp, qts_local_to_global, qts_local_to_global_matrix,
                     skin, skinning_palette, slerp, transform_points)
from .dataset import (ClipFailure, ClipItem, Compress, DatasetReport, GlobalPositions,  # noqa: F401
                      Resample, RootFeatures, build_dataset, find_motion_files, process_clip,
                      read_clips, write_clips)
