from .clip import Clip
from .skeleton import mirror_pairs as mirror_pairs

ClipEditing = Clip

__all__ = ["ClipEditing", "mirror_pairs"]
