"""Skeleton.index suggests close names for typos and near misses, not only substrings."""
import pytest

import skelsimd as S


@pytest.fixture(scope="module")
def cmu():
    return S.data.load_example().skeleton       # Hips, LeftHip, LeftToe, lhand, ...


@pytest.mark.parametrize("query, first, also", [
    ("LeftToeBase", "LeftToe", []),             # a near miss: the file says LeftToe
    ("lefttoe", "LeftToe", []),                 # case
    ("LeftKnea", "LeftKnee", []),               # a typo
    ("Heed", "Head", []),
    ("hand", "lhand", ["rhand"]),               # a substring
    ("Hip", "Hips", ["LeftHip", "RightHip"]),
    ("RightWirst", "RightWrist", []),           # transposed letters
])
def test_suggestions(cmu, query, first, also):
    with pytest.raises(ValueError) as info:
        cmu.index(query)
    msg = str(info.value)
    assert f"no joint named {query!r}" in msg and "31 joints" in msg
    suggested = msg.split("similar: ")[1].split(", ")
    assert suggested[0] == first, msg
    assert all(name in suggested for name in also), msg
    assert len(suggested) <= 5


def test_no_suggestion_for_unrelated_names(cmu):
    with pytest.raises(ValueError) as info:
        cmu.index("Zzyzx")
    assert "similar" not in str(info.value)
