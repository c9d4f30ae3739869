from ..clip import Clip

__all__ = ["EXAMPLE_BVH", "example_path", "load_example", "ORIGIN"]

EXAMPLE_BVH: str
ORIGIN: str

def example_path() -> str: ...
def load_example(*, end_sites: bool = False) -> Clip: ...
