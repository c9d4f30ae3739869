"""How skelsimd/data/cesium_man.glb was made from Khronos' CesiumMan (its origin and licence are in
skelsimd/data/README.md):

    python tests/data/make_character.py PATH/TO/cesium_man.gltf

It keeps the skin (the joints, their rest transforms and inverse bind matrices) and the skinned
mesh (positions, normals, triangles, joints and weights) and leaves out the texture (which shows
the Cesium logo, a trademark), the material and the animation: skelsimd.save_gltf writes them.
"""
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
DEST = os.path.join(HERE, "..", "..", "skelsimd", "data", "cesium_man.glb")


def main(source):
    import skelsimd

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # some vertices' weights sum to 1 +- 1e-2
        asset = skelsimd.load_gltf(source)
    skin, mesh = asset.skins[0], asset.meshes[0]
    skelsimd.save_gltf(DEST, skin.skeleton, mesh=mesh, inverse_bind=skin.inverse_bind,
                       mesh_name="Cesium_Man")
    print(f"{DEST}: {len(skin.skeleton)} joints, {len(mesh.positions)} vertices, "
          f"{os.path.getsize(DEST)} bytes")


if __name__ == "__main__":
    main(sys.argv[1])
