// ozz_bench: times ozz-animation runtime jobs on inputs written by compare_ozz.py, so that
// skelsimd and ozz-animation run on the same bytes in one interleaved run.
//
//   ozz_bench DIR
//
// reads commands from stdin, one per line, and answers each with one JSON line on stdout:
//
//   time JOB MIN_TIME REPEAT   best seconds per call over REPEAT samples, each sample a batch
//                              of calls lasting at least MIN_TIME seconds (the calibration of
//                              skelsimd._bench.core.measure), and the ns per unit it gives
//   check JOB                  run JOB once and write its outputs to DIR/JOB.out.NAME.arr
//   quit
//
// A job's inputs are DIR/JOB.NAME.arr (DIR/nlerp.* for nlerp_nofix). Array files: the 4 bytes
// "SKB1", uint32 dtype (1 float32, 2 int32), uint32 ndim (1 to 4), ndim uint64 dims, then the
// data in C order, little-endian. Everything a job converts to ozz's layouts (SoaTransform,
// Float4x4, uint16 joint indices) is converted when the job is loaded, outside the timed part.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ozz/animation/offline/raw_skeleton.h"
#include "ozz/animation/offline/skeleton_builder.h"
#include "ozz/animation/runtime/blending_job.h"
#include "ozz/animation/runtime/ik_aim_job.h"
#include "ozz/animation/runtime/ik_two_bone_job.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/simd_quaternion.h"
#include "ozz/base/maths/soa_quaternion.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/base/span.h"
#include "ozz/geometry/runtime/skinning_job.h"

namespace {

using ozz::math::Float4x4;
using ozz::math::SimdFloat4;
using ozz::math::SimdQuaternion;
using ozz::math::SoaQuaternion;
using ozz::math::SoaTransform;
namespace simd_float4 = ozz::math::simd_float4;

// ---------------------------------------------------------------------------------------------
// Array files

struct Array {
  uint32_t dtype = 0;            // 1 float32, 2 int32
  std::vector<uint64_t> shape;
  std::vector<float> f;          // dtype 1
  std::vector<int32_t> i;        // dtype 2

  size_t size() const {
    size_t n = 1;
    for (uint64_t d : shape) n *= static_cast<size_t>(d);
    return n;
  }
};

std::string g_dir;

std::string path_of(const std::string& job, const std::string& name) {
  return g_dir + "/" + job + "." + name + ".arr";
}

bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

// Reads and validates one array file: the header must match the file's length exactly.
Array read_array(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  char magic[4];
  uint32_t dtype = 0, ndim = 0;
  in.read(magic, 4);
  in.read(reinterpret_cast<char*>(&dtype), 4);
  in.read(reinterpret_cast<char*>(&ndim), 4);
  if (!in || std::memcmp(magic, "SKB1", 4) != 0 || (dtype != 1 && dtype != 2) || ndim < 1 ||
      ndim > 4) {
    throw std::runtime_error(path + ": not an SKB1 array file");
  }
  Array a;
  a.dtype = dtype;
  a.shape.resize(ndim);
  in.read(reinterpret_cast<char*>(a.shape.data()), 8 * ndim);
  uint64_t count = 1;
  for (uint64_t d : a.shape) {
    if (!in || d == 0 || d > (1u << 30) || count * d > (1u << 30)) {
      throw std::runtime_error(path + ": bad shape");
    }
    count *= d;
  }
  char* data;
  if (dtype == 1) {
    a.f.resize(count);
    data = reinterpret_cast<char*>(a.f.data());
  } else {
    a.i.resize(count);
    data = reinterpret_cast<char*>(a.i.data());
  }
  in.read(data, static_cast<std::streamsize>(4 * count));
  if (!in || in.peek() != std::char_traits<char>::eof()) {
    throw std::runtime_error(path + ": length does not match its header");
  }
  return a;
}

// Checks an array's dtype and shape; a dimension given as 0 matches any size.
void expect(const Array& a, const std::string& what, uint32_t dtype,
            const std::vector<uint64_t>& shape) {
  bool ok = a.dtype == dtype && a.shape.size() == shape.size();
  for (size_t k = 0; ok && k < shape.size(); ++k) ok = shape[k] == 0 || shape[k] == a.shape[k];
  if (!ok) throw std::runtime_error(what + ": unexpected dtype or shape");
}

void write_array(const std::string& path, const std::vector<float>& data,
                 const std::vector<uint64_t>& shape) {
  std::ofstream out(path, std::ios::binary);
  const uint32_t dtype = 1, ndim = static_cast<uint32_t>(shape.size());
  out.write("SKB1", 4);
  out.write(reinterpret_cast<const char*>(&dtype), 4);
  out.write(reinterpret_cast<const char*>(&ndim), 4);
  out.write(reinterpret_cast<const char*>(shape.data()), static_cast<std::streamsize>(8 * ndim));
  out.write(reinterpret_cast<const char*>(data.data()),
            static_cast<std::streamsize>(4 * data.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

// ---------------------------------------------------------------------------------------------
// Conversions to ozz's layouts (untimed)

// A (3, 4) row-major [R | t] joint matrix as ozz's column-major Float4x4 (last row 0 0 0 1).
Float4x4 to_float4x4(const float* m) {
  Float4x4 r;
  for (int c = 0; c < 3; ++c) r.cols[c] = simd_float4::Load(m[c], m[4 + c], m[8 + c], 0.f);
  r.cols[3] = simd_float4::Load(m[3], m[7], m[11], 1.f);
  return r;
}

void from_float4x4(const Float4x4& m, float* out) {
  float col[4][4];
  for (int c = 0; c < 4; ++c) ozz::math::StorePtrU(m.cols[c], col[c]);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) out[4 * r + c] = col[c][r];
  }
}

// J QTS rows (qx, qy, qz, qw, tx, ty, tz, s) as ceil(J / 4) SoaTransforms, the uniform scale
// in all three scale lanes; the padding lanes of the last SoaTransform are identities.
void to_soa(const float* qts, size_t joints, SoaTransform* out) {
  for (size_t b = 0; b < (joints + 3) / 4; ++b) {
    float v[10][4];
    for (int l = 0; l < 4; ++l) {
      const size_t j = 4 * b + l;
      static const float identity[8] = {0, 0, 0, 1, 0, 0, 0, 1};
      const float* x = j < joints ? qts + 8 * j : identity;
      const float row[10] = {x[4], x[5], x[6], x[0], x[1], x[2], x[3], x[7], x[7], x[7]};
      for (int k = 0; k < 10; ++k) v[k][l] = row[k];
    }
    SimdFloat4 s[10];
    for (int k = 0; k < 10; ++k) s[k] = simd_float4::LoadPtrU(v[k]);
    out[b].translation = {s[0], s[1], s[2]};
    out[b].rotation = {s[3], s[4], s[5], s[6]};
    out[b].scale = {s[7], s[8], s[9]};
  }
}

// SoaTransforms back to J rows of 10 floats: quaternion, translation, the three scales.
void from_soa(const SoaTransform* in, size_t joints, float* out) {
  for (size_t b = 0; b < (joints + 3) / 4; ++b) {
    const SimdFloat4 s[10] = {in[b].rotation.x,    in[b].rotation.y,    in[b].rotation.z,
                              in[b].rotation.w,    in[b].translation.x, in[b].translation.y,
                              in[b].translation.z, in[b].scale.x,       in[b].scale.y,
                              in[b].scale.z};
    float v[10][4];
    for (int k = 0; k < 10; ++k) ozz::math::StorePtrU(s[k], v[k]);
    for (int l = 0; l < 4 && 4 * b + l < joints; ++l) {
      for (int k = 0; k < 10; ++k) out[10 * (4 * b + l) + k] = v[k][l];
    }
  }
}

SimdFloat4 load3(const float* p) { return simd_float4::Load(p[0], p[1], p[2], 0.f); }

// ---------------------------------------------------------------------------------------------
// Jobs

class Job {
 public:
  virtual ~Job() = default;
  virtual size_t units() const = 0;      // units per call (vertices, pairs, joints, solves)
  virtual const char* unit() const = 0;
  virtual void run() = 0;                // one timed call
  virtual void write_outputs(const std::string& job) const = 0;
};

// SkinningJob, 4 influences: positions, or positions and normals. ozz reads 3 weights per
// vertex (the 4th is 1 minus their sum) from the same (V, 4) rows, 16 bytes apart.
class SkinJob : public Job {
 public:
  SkinJob(const std::string& job, bool normals) : normals_(normals) {
    positions_ = read_array(path_of(job, "positions"));
    expect(positions_, "positions", 1, {0, 3});
    const uint64_t v = positions_.shape[0];
    Array idx = read_array(path_of(job, "indices"));
    expect(idx, "indices", 2, {v, 4});
    weights_ = read_array(path_of(job, "weights"));
    expect(weights_, "weights", 1, {v, 4});
    Array palette = read_array(path_of(job, "palette"));
    expect(palette, "palette", 1, {0, 3, 4});
    const size_t joints = palette.shape[0];
    if (joints > 65536) throw std::runtime_error("palette: too many joints for uint16 indices");
    for (size_t j = 0; j < joints; ++j) matrices_.push_back(to_float4x4(&palette.f[12 * j]));
    for (int32_t k : idx.i) {
      if (k < 0 || static_cast<size_t>(k) >= joints) {
        throw std::runtime_error("indices: out of range");
      }
      indices_.push_back(static_cast<uint16_t>(k));
    }
    out_positions_.resize(3 * v);
    if (normals_) {
      normals_in_ = read_array(path_of(job, "normals"));
      expect(normals_in_, "normals", 1, {v, 3});
      out_normals_.resize(3 * v);
    }
    job_.vertex_count = static_cast<int>(v);
    job_.influences_count = 4;
    job_.joint_matrices = ozz::make_span(matrices_);
    job_.joint_indices = ozz::make_span(indices_);
    job_.joint_indices_stride = 4 * sizeof(uint16_t);
    job_.joint_weights = ozz::make_span(weights_.f);
    job_.joint_weights_stride = 4 * sizeof(float);
    job_.in_positions = ozz::make_span(positions_.f);
    job_.in_positions_stride = 3 * sizeof(float);
    job_.out_positions = ozz::make_span(out_positions_);
    job_.out_positions_stride = 3 * sizeof(float);
    if (normals_) {
      job_.in_normals = ozz::make_span(normals_in_.f);
      job_.in_normals_stride = 3 * sizeof(float);
      job_.out_normals = ozz::make_span(out_normals_);
      job_.out_normals_stride = 3 * sizeof(float);
    }
    if (!job_.Validate()) throw std::runtime_error("SkinningJob does not validate");
  }
  size_t units() const override { return positions_.shape[0]; }
  const char* unit() const override { return "vertex"; }
  void run() override { job_.Run(); }
  void write_outputs(const std::string& job) const override {
    write_array(path_of(job, "out.positions"), out_positions_, {positions_.shape[0], 3});
    if (normals_) write_array(path_of(job, "out.normals"), out_normals_, {positions_.shape[0], 3});
  }

 private:
  bool normals_;
  Array positions_, weights_, normals_in_;
  std::vector<Float4x4> matrices_;
  std::vector<uint16_t> indices_;
  std::vector<float> out_positions_, out_normals_;
  ozz::geometry::SkinningJob job_;
};

// NLerp of n quaternion pairs held as n / 4 SoaQuaternions, one t per pair (SoA like the
// quaternions). With `shortest`, each q1 is first moved to q0's hemisphere (the sign of their
// dot product xor-ed into q1, the rule of BlendingJob's passes), as skelsimd.nlerp does;
// without it, ozz::math::NLerp alone.
class NlerpJob : public Job {
 public:
  NlerpJob(const std::string& job, bool shortest) : shortest_(shortest) {
    Array q0 = read_array(path_of(job, "q0"));
    expect(q0, "q0", 1, {0, 4});
    n_ = q0.shape[0];
    if (n_ % 4 != 0) throw std::runtime_error("q0: the pair count must be a multiple of 4");
    Array q1 = read_array(path_of(job, "q1"));
    expect(q1, "q1", 1, {n_, 4});
    Array t = read_array(path_of(job, "t"));
    expect(t, "t", 1, {n_});
    for (size_t b = 0; b < n_ / 4; ++b) {
      a_.push_back(soa(&q0.f[16 * b]));
      b_.push_back(soa(&q1.f[16 * b]));
      t_.push_back(simd_float4::LoadPtrU(&t.f[4 * b]));
    }
    out_.resize(n_ / 4);
  }
  size_t units() const override { return n_; }
  const char* unit() const override { return "pair"; }
  void run() override {
    const size_t blocks = a_.size();
    if (shortest_) {
      for (size_t b = 0; b < blocks; ++b) {
        const SoaQuaternion& q1 = b_[b];
        const ozz::math::SimdInt4 sign = ozz::math::Sign(Dot(a_[b], q1));
        const SoaQuaternion aligned = {ozz::math::Xor(q1.x, sign), ozz::math::Xor(q1.y, sign),
                                       ozz::math::Xor(q1.z, sign), ozz::math::Xor(q1.w, sign)};
        out_[b] = ozz::math::NLerp(a_[b], aligned, t_[b]);
      }
    } else {
      for (size_t b = 0; b < blocks; ++b) out_[b] = ozz::math::NLerp(a_[b], b_[b], t_[b]);
    }
  }
  void write_outputs(const std::string& job) const override {
    std::vector<float> out(4 * n_);
    for (size_t b = 0; b < out_.size(); ++b) {
      float v[4][4];
      ozz::math::StorePtrU(out_[b].x, v[0]);
      ozz::math::StorePtrU(out_[b].y, v[1]);
      ozz::math::StorePtrU(out_[b].z, v[2]);
      ozz::math::StorePtrU(out_[b].w, v[3]);
      for (int l = 0; l < 4; ++l) {
        for (int k = 0; k < 4; ++k) out[16 * b + 4 * l + k] = v[k][l];
      }
    }
    write_array(path_of(job, "out.q"), out, {n_, 4});
  }

 private:
  static SoaQuaternion soa(const float* q) {  // 4 (x, y, z, w) rows to SoA
    return {simd_float4::Load(q[0], q[4], q[8], q[12]), simd_float4::Load(q[1], q[5], q[9], q[13]),
            simd_float4::Load(q[2], q[6], q[10], q[14]),
            simd_float4::Load(q[3], q[7], q[11], q[15])};
  }
  bool shortest_;
  size_t n_ = 0;
  std::vector<SoaQuaternion> a_, b_, out_;
  std::vector<SimdFloat4> t_;
};

// BlendingJob, one Run per character: L layers (B, L, J, 8) with weights (L,), and optionally
// one additive layer (B, J, 8) at a weight; the rest pose (identities) is never blended in, as
// the weights sum to 1 (above the default threshold 0.1).
class BlendJob : public Job {
 public:
  explicit BlendJob(const std::string& job) {
    Array layers = read_array(path_of(job, "layers"));
    expect(layers, "layers", 1, {0, 0, 0, 8});
    batch_ = layers.shape[0];
    const size_t nl = layers.shape[1];
    joints_ = layers.shape[2];
    soa_ = (joints_ + 3) / 4;
    if (soa_ > static_cast<size_t>(ozz::animation::Skeleton::kMaxSoAJoints)) {
      throw std::runtime_error("layers: too many joints for BlendingJob");
    }
    Array weights = read_array(path_of(job, "weights"));
    expect(weights, "weights", 1, {nl});
    const bool additive = file_exists(path_of(job, "additive"));
    Array delta, delta_weight;
    if (additive) {
      delta = read_array(path_of(job, "additive"));
      expect(delta, "additive", 1, {batch_, joints_, 8});
      delta_weight = read_array(path_of(job, "additive_weight"));
      expect(delta_weight, "additive_weight", 1, {1});
    }
    in_.resize(batch_ * nl * soa_);
    for (size_t c = 0; c < batch_; ++c) {
      for (size_t l = 0; l < nl; ++l) {
        to_soa(&layers.f[((c * nl) + l) * joints_ * 8], joints_, &in_[(c * nl + l) * soa_]);
      }
    }
    if (additive) {
      add_.resize(batch_ * soa_);
      for (size_t c = 0; c < batch_; ++c) {
        to_soa(&delta.f[c * joints_ * 8], joints_, &add_[c * soa_]);
      }
    }
    rest_.assign(soa_, SoaTransform::identity());
    out_.resize(batch_ * soa_);
    // the per-character layer descriptions, built once
    layers_.resize(batch_ * nl);
    additive_.resize(additive ? batch_ : 0);
    for (size_t c = 0; c < batch_; ++c) {
      for (size_t l = 0; l < nl; ++l) {
        layers_[c * nl + l].weight = weights.f[l];
        layers_[c * nl + l].transform = {&in_[(c * nl + l) * soa_], soa_};
      }
      if (additive) {
        additive_[c].weight = delta_weight.f[0];
        additive_[c].transform = {&add_[c * soa_], soa_};
      }
    }
    nl_ = nl;
  }
  size_t units() const override { return batch_ * joints_; }
  const char* unit() const override { return "joint"; }
  void run() override {
    ozz::animation::BlendingJob job;
    job.rest_pose = ozz::make_span(rest_);
    for (size_t c = 0; c < batch_; ++c) {
      job.layers = {&layers_[c * nl_], nl_};
      if (!additive_.empty()) job.additive_layers = {&additive_[c], 1};
      job.output = {&out_[c * soa_], soa_};
      job.Run();
    }
  }
  void write_outputs(const std::string& job) const override {
    std::vector<float> out(batch_ * joints_ * 10);
    for (size_t c = 0; c < batch_; ++c) from_soa(&out_[c * soa_], joints_, &out[c * joints_ * 10]);
    write_array(path_of(job, "out.pose"), out, {batch_, joints_, 10});
  }

 private:
  size_t batch_ = 0, joints_ = 0, soa_ = 0, nl_ = 0;
  std::vector<SoaTransform> in_, add_, rest_, out_;
  std::vector<ozz::animation::BlendingJob::Layer> layers_, additive_;
};

// Builds the ozz Skeleton of a parent array with the offline SkeletonBuilder. Joints are named
// by their index in the array, so that ozz's joint order can be mapped back to the array's.
ozz::animation::offline::RawSkeleton::Joint raw_joint(
    int j, const std::vector<std::vector<int>>& children) {
  ozz::animation::offline::RawSkeleton::Joint joint;
  joint.name = std::to_string(j).c_str();
  joint.transform = ozz::math::Transform::identity();
  for (int c : children[j]) joint.children.push_back(raw_joint(c, children));
  return joint;
}

// LocalToModelJob, one Run per character, on QTS local poses (B, J, 8) converted to
// SoaTransforms in the skeleton's order.
class LocalToModelJob : public Job {
 public:
  explicit LocalToModelJob(const std::string& job) {
    Array parents = read_array(path_of(job, "parents"));
    expect(parents, "parents", 2, {0});
    joints_ = parents.shape[0];
    if (joints_ > static_cast<size_t>(ozz::animation::Skeleton::kMaxJoints)) {
      throw std::runtime_error("parents: too many joints for an ozz Skeleton");
    }
    std::vector<std::vector<int>> children(joints_);
    ozz::animation::offline::RawSkeleton raw;
    for (size_t j = 0; j < joints_; ++j) {
      const int p = parents.i[j];
      if (p >= static_cast<int>(j) || p < -1) throw std::runtime_error("parents: not ordered");
      if (p >= 0) children[p].push_back(static_cast<int>(j));
    }
    for (size_t j = 0; j < joints_; ++j) {
      if (parents.i[j] < 0) raw.roots.push_back(raw_joint(static_cast<int>(j), children));
    }
    skeleton_ = ozz::animation::offline::SkeletonBuilder()(raw);
    if (!skeleton_) throw std::runtime_error("SkeletonBuilder failed");
    // order_[k]: the array index of ozz joint k
    for (const char* name : skeleton_->joint_names()) order_.push_back(std::stoi(name));

    Array local = read_array(path_of(job, "local"));
    expect(local, "local", 1, {0, joints_, 8});
    batch_ = local.shape[0];
    soa_ = static_cast<size_t>(skeleton_->num_soa_joints());
    in_.resize(batch_ * soa_);
    std::vector<float> reordered(joints_ * 8);
    for (size_t c = 0; c < batch_; ++c) {
      for (size_t k = 0; k < joints_; ++k) {
        std::memcpy(&reordered[8 * k], &local.f[(c * joints_ + order_[k]) * 8], 8 * sizeof(float));
      }
      to_soa(reordered.data(), joints_, &in_[c * soa_]);
    }
    out_.resize(batch_ * joints_);
  }
  size_t units() const override { return batch_ * joints_; }
  const char* unit() const override { return "joint"; }
  void run() override {
    ozz::animation::LocalToModelJob job;
    job.skeleton = skeleton_.get();
    for (size_t c = 0; c < batch_; ++c) {
      job.input = {&in_[c * soa_], soa_};
      job.output = {&out_[c * joints_], joints_};
      job.Run();
    }
  }
  void write_outputs(const std::string& job) const override {
    std::vector<float> out(batch_ * joints_ * 12);
    for (size_t c = 0; c < batch_; ++c) {
      for (size_t k = 0; k < joints_; ++k) {
        from_float4x4(out_[c * joints_ + k], &out[(c * joints_ + order_[k]) * 12]);
      }
    }
    write_array(path_of(job, "out.global"), out, {batch_, joints_, 3, 4});
  }

 private:
  size_t joints_ = 0, batch_ = 0, soa_ = 0;
  ozz::unique_ptr<ozz::animation::Skeleton> skeleton_;
  std::vector<int> order_;
  std::vector<SoaTransform> in_;
  std::vector<Float4x4> out_;
};

std::vector<Float4x4> matrices(const std::string& job, const char* name, size_t n) {
  Array a = read_array(path_of(job, name));
  expect(a, name, 1, {n, 3, 4});
  std::vector<Float4x4> out;
  for (size_t k = 0; k < n; ++k) out.push_back(to_float4x4(&a.f[12 * k]));
  return out;
}

std::vector<SimdFloat4> vectors(const std::string& job, const char* name, size_t n) {
  Array a = read_array(path_of(job, name));
  expect(a, name, 1, {n, 3});
  std::vector<SimdFloat4> out;
  for (size_t k = 0; k < n; ++k) out.push_back(load3(&a.f[3 * k]));
  return out;
}

std::vector<float> quaternions_out(const std::vector<SimdQuaternion>& q) {
  std::vector<float> out(4 * q.size());
  for (size_t k = 0; k < q.size(); ++k) ozz::math::StorePtrU(q[k].xyzw, &out[4 * k]);
  return out;
}

// The IK jobs' common part: one solve per target (n, 3), each with a pole (n, 3) and a reached
// flag.
class IkJob : public Job {
 public:
  explicit IkJob(const std::string& job) {
    Array target = read_array(path_of(job, "target"));
    expect(target, "target", 1, {0, 3});
    n_ = target.shape[0];
    target_ = vectors(job, "target", n_);
    pole_ = vectors(job, "pole", n_);
    reached_.reset(new bool[n_]);
  }
  size_t units() const override { return n_; }
  const char* unit() const override { return "solve"; }

 protected:
  void write_reached(const std::string& job) const {
    std::vector<float> reached(reached_.get(), reached_.get() + n_);
    write_array(path_of(job, "out.reached"), reached, {n_});
  }
  size_t n_ = 0;
  std::vector<SimdFloat4> target_, pole_;
  std::unique_ptr<bool[]> reached_;
};

// IKTwoBoneJob, one Run per chain: model-space start, mid, end matrices (n, 3, 4), targets,
// poles and mid axes (n, 3); default soften, weight and twist.
class TwoBoneJob : public IkJob {
 public:
  explicit TwoBoneJob(const std::string& job) : IkJob(job) {
    start_ = matrices(job, "start", n_);
    mid_ = matrices(job, "mid", n_);
    end_ = matrices(job, "end", n_);
    axis_ = vectors(job, "axis", n_);
    start_corr_.resize(n_);
    mid_corr_.resize(n_);
  }
  void run() override {
    ozz::animation::IKTwoBoneJob job;
    for (size_t k = 0; k < n_; ++k) {
      job.target = target_[k];
      job.pole_vector = pole_[k];
      job.mid_axis = axis_[k];
      job.start_joint = &start_[k];
      job.mid_joint = &mid_[k];
      job.end_joint = &end_[k];
      job.start_joint_correction = &start_corr_[k];
      job.mid_joint_correction = &mid_corr_[k];
      job.reached = &reached_[k];
      job.Run();
    }
  }
  void write_outputs(const std::string& job) const override {
    write_array(path_of(job, "out.start"), quaternions_out(start_corr_), {n_, 4});
    write_array(path_of(job, "out.mid"), quaternions_out(mid_corr_), {n_, 4});
    write_reached(job);
  }

 private:
  std::vector<Float4x4> start_, mid_, end_;
  std::vector<SimdFloat4> axis_;
  std::vector<SimdQuaternion> start_corr_, mid_corr_;
};

// IKAimJob, one Run per joint: model-space joint matrices (n, 3, 4), targets and poles (n, 3),
// one forward and one up axis (3,); zero offset, default weight and twist.
class AimJob : public IkJob {
 public:
  explicit AimJob(const std::string& job) : IkJob(job) {
    joint_ = matrices(job, "joint", n_);
    Array forward = read_array(path_of(job, "forward"));
    expect(forward, "forward", 1, {3});
    Array up = read_array(path_of(job, "up"));
    expect(up, "up", 1, {3});
    forward_ = load3(forward.f.data());
    up_ = load3(up.f.data());
    corr_.resize(n_);
  }
  void run() override {
    ozz::animation::IKAimJob job;
    job.forward = forward_;
    job.up = up_;
    for (size_t k = 0; k < n_; ++k) {
      job.target = target_[k];
      job.pole_vector = pole_[k];
      job.joint = &joint_[k];
      job.joint_correction = &corr_[k];
      job.reached = &reached_[k];
      job.Run();
    }
  }
  void write_outputs(const std::string& job) const override {
    write_array(path_of(job, "out.q"), quaternions_out(corr_), {n_, 4});
    write_reached(job);
  }

 private:
  std::vector<Float4x4> joint_;
  SimdFloat4 forward_, up_;
  std::vector<SimdQuaternion> corr_;
};

std::unique_ptr<Job> make_job(const std::string& name) {
  if (name == "skin") return std::unique_ptr<Job>(new SkinJob(name, false));
  // skin_normals, skin_normals_VERTICES (the sizes of compare_ozz.py --skin)
  if (name.rfind("skin_normals", 0) == 0) return std::unique_ptr<Job>(new SkinJob(name, true));
  if (name == "nlerp") return std::unique_ptr<Job>(new NlerpJob(name, true));
  if (name == "nlerp_nofix") return std::unique_ptr<Job>(new NlerpJob("nlerp", false));
  if (name.rfind("blend", 0) == 0) return std::unique_ptr<Job>(new BlendJob(name));
  if (name == "local_to_model") return std::unique_ptr<Job>(new LocalToModelJob(name));
  if (name == "ik_two_bone") return std::unique_ptr<Job>(new TwoBoneJob(name));
  if (name == "ik_aim") return std::unique_ptr<Job>(new AimJob(name));
  throw std::runtime_error("unknown job " + name);
}

// ---------------------------------------------------------------------------------------------
// Timing: calls batched so that one sample lasts at least min_time, best of `repeat` samples

double seconds_per_call(Job& job, double min_time, int repeat) {
  using clock = std::chrono::steady_clock;
  auto batch = [&job](long number) {
    const auto t0 = clock::now();
    for (long k = 0; k < number; ++k) job.run();
    return std::chrono::duration<double>(clock::now() - t0).count();
  };
  job.run();  // warm up
  long number = 1;
  double dt;
  for (;;) {
    dt = batch(number);
    if (dt >= min_time || number >= (1L << 20)) break;
    const long grow = static_cast<long>(min_time / std::max(dt, 1e-9)) / 2;
    number *= std::max(2L, grow);
  }
  double best = dt / static_cast<double>(number);
  for (int r = 1; r < repeat; ++r) {
    best = std::min(best, batch(number) / static_cast<double>(number));
  }
  return best;
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += (c == '\n') ? ' ' : c;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: ozz_bench DIR (commands on stdin: "
                 "time JOB MIN_TIME REPEAT | check JOB | quit)\n";
    return 2;
  }
  g_dir = argv[1];
  std::map<std::string, std::unique_ptr<Job>> jobs;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream words(line);
    std::string command, name;
    words >> command;
    if (command == "quit" || command.empty()) break;
    words >> name;
    try {
      auto it = jobs.find(name);
      if (it == jobs.end()) it = jobs.emplace(name, make_job(name)).first;
      Job& job = *it->second;
      if (command == "check") {
        job.run();
        job.write_outputs(name);
        std::cout << "{\"job\": \"" << name << "\", \"checked\": true}" << std::endl;
      } else if (command == "time") {
        double min_time = 0.05;
        int repeat = 5;
        words >> min_time >> repeat;
        const double t = seconds_per_call(job, min_time, repeat);
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "{\"job\": \"%s\", \"seconds_per_call\": %.9g, \"units_per_call\": %zu, "
                      "\"unit\": \"%s\", \"ns_per_unit\": %.6g}",
                      name.c_str(), t, job.units(), job.unit(), t * 1e9 / job.units());
        std::cout << buf << std::endl;
      } else {
        throw std::runtime_error("unknown command " + command);
      }
    } catch (const std::exception& e) {
      std::cout << "{\"job\": \"" << json_escape(name) << "\", \"error\": \""
                << json_escape(e.what()) << "\"}" << std::endl;
    }
  }
  return 0;
}
