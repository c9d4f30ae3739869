"""The former home of clip editing, kept so that old imports work: the editing methods are
:class:`skelsimd.Clip`'s own (:mod:`skelsimd.clip`), ``mirror_pairs`` is in
:mod:`skelsimd.skeleton`."""
from .clip import Clip
from .skeleton import mirror_pairs

#: Clip editing used to be a mixin of Clip; the methods are now Clip's own.
ClipEditing = Clip

__all__ = ["ClipEditing", "mirror_pairs"]
