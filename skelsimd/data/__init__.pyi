from typing import Any

from ..clip import Clip
from ..skeleton import Skeleton

__all__ = ["EXAMPLE_BVH", "example_path", "load_example", "example_mesh", "ORIGIN"]

EXAMPLE_BVH: str
ORIGIN: str

def example_path() -> str: ...
def load_example(*, end_sites: bool = False) -> Clip: ...
def example_mesh(skeleton: Skeleton | None = None, *, sides: int = 8, rings: int = 5,
                 radius: float | None = None) -> dict[str, Any]: ...
