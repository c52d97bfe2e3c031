#include "subgroup_glsl.hpp"

#include <fmt/format.h>

#include "glsl_ops.hpp"
#include "primitive_tuning.hpp"

namespace gpgpu::primitives {

std::uint32_t required_subgroup_features() {
  // GL_SUBGROUP_FEATURE_{BASIC, VOTE, ARITHMETIC, BALLOT, SHUFFLE}_BIT_KHR (the primitives
  // use the public API only, so not GL's headers).
  return 0x1u | 0x2u | 0x4u | 0x8u | 0x10u;
}

bool native_subgroups(const DeviceInfo& info) {
  // Sizes above 128 do not fit a ballot's uvec4; below 4 nothing is gained.
  return info.has_subgroup_features(required_subgroup_features()) && info.subgroup_size >= 4 &&
         info.subgroup_size <= 128 && (info.subgroup_size & (info.subgroup_size - 1)) == 0;
}

int emulated_subgroup_size(const DeviceInfo& info) {
  // Measured when the Context was made (gl/lockstep_probe.hpp): the lockstep vector width of
  // a CPU device, 0 where work groups do not run that way.
  return info.is_software ? info.lockstep_width : 0;
}

Subgroups subgroups_for(const DeviceInfo& info, int subgroups) {
  Subgroups sg;
  if (subgroups != 1) return sg;
  sg.on = true;
  sg.native = native_subgroups(info);
  sg.size = sg.native ? info.subgroup_size : emulated_subgroup_size(info);
  return sg;
}

Subgroups subgroups(const Context& ctx) {
  return subgroups_for(ctx.info(), effective_tuning(ctx).subgroups);
}

int subgroup_local(int local, const Subgroups& sg) {
  if (!sg.on || sg.size <= 0) return local;
  return (local + sg.size - 1) / sg.size * sg.size;
}

std::int64_t subgroup_shared_bytes(const Subgroups& sg, int local) {
  if (!sg.on || sg.native || sg.size <= 0) return 0;
  // sgx_word[SG_COUNT] and sgx_uint / sgx_int / sgx_float[L].
  return 4 * (std::int64_t{local} / sg.size) + 12 * std::int64_t{local};
}

namespace {

// GL_KHR_shader_subgroup: the extensions (hoisted to the top by the source assembly).
const char* const native_glsl = R"(
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
uint sg_lane() { return gl_SubgroupInvocationID; }
uint sg_index() { return gl_SubgroupID; }
uvec4 sg_ballot(bool p) { return subgroupBallot(p); }
uint sg_ballot_count(uvec4 b) { return subgroupBallotBitCount(b); }
uint sg_ballot_below(uvec4 b) { return subgroupBallotExclusiveBitCount(b); }
uint sg_ballot_first(uvec4 b) { return subgroupBallotBitCount(b) == 0u ? SG_SIZE : subgroupBallotFindLSB(b); }
bool sg_any(bool p) { return subgroupAny(p); }
bool sg_all(bool p) { return subgroupAll(p); }
uint sg_shuffle(uint v, uint lane) { return subgroupShuffle(v, lane); }
int sg_shuffle(int v, uint lane) { return subgroupShuffle(v, lane); }
float sg_shuffle(float v, uint lane) { return subgroupShuffle(v, lane); }
)";

// A CPU device that runs work groups as lockstep SIMD vectors (llvmpipe; see the header): a
// subgroup is one vector of consecutive invocations. Values pass through shared memory;
// memoryBarrierShared keeps the compiler from moving the accesses across each other.
const char* const emulated_glsl = R"(
shared uint sgx_word[SG_COUNT];
shared uint sgx_uint[L];
shared int sgx_int[L];
shared float sgx_float[L];
uint sg_lane() { return gl_LocalInvocationIndex % SG_SIZE; }
uint sg_index() { return gl_LocalInvocationIndex / SG_SIZE; }
uvec4 sg_ballot(bool p) {
  uint s = sg_index();
  sgx_word[s] = 0u;
  memoryBarrierShared();
  if (p) atomicOr(sgx_word[s], 1u << sg_lane());
  memoryBarrierShared();
  uint r = sgx_word[s];
  memoryBarrierShared();
  return uvec4(r, 0u, 0u, 0u);
}
uint sg_ballot_count(uvec4 b) { return uint(bitCount(b.x)); }
uint sg_ballot_below(uvec4 b) { return uint(bitCount(b.x & ((1u << sg_lane()) - 1u))); }
uint sg_ballot_first(uvec4 b) { return b.x == 0u ? SG_SIZE : uint(findLSB(b.x)); }
bool sg_any(bool p) { return sg_ballot(p).x != 0u; }
bool sg_all(bool p) { return sg_ballot(!p).x == 0u; }
)";

const char* native_op(Op op) {
  switch (op) {
    case Op::Sum:
      return "Add";
    case Op::Product:
      return "Mul";
    case Op::Min:
      return "Min";
    case Op::Max:
      return "Max";
  }
  return "?";
}

}  // namespace

std::string subgroup_glsl(const Subgroups& sg, int local) {
  std::string s =
      fmt::format("#ifndef L\n#define L {0}\n#endif\n#define SG_SIZE {1}u\n#define SG_COUNT {2}\n",
                  local, sg.size, local / sg.size);
  if (sg.native) return s + native_glsl;
  s += emulated_glsl;
  for (const char* t : {"uint", "int", "float"}) {
    s += fmt::format(
        "{0} sg_shuffle({0} v, uint lane) {{\n"
        "  sgx_{0}[gl_LocalInvocationIndex] = v;\n"
        "  memoryBarrierShared();\n"
        "  {0} r = sgx_{0}[sg_index() * SG_SIZE + lane];\n"
        "  memoryBarrierShared();\n"
        "  return r;\n"
        "}}\n",
        t);
  }
  return s;
}

std::string subgroup_op_glsl(const Subgroups& sg, ElementType type, Op op,
                             const std::string& name) {
  const std::string t = scalar_type(type);
  if (sg.native) {
    return fmt::format(
        "{0} {1}_reduce({0} x) {{ return subgroup{2}(x); }}\n"
        "{0} {1}_inclusive({0} x) {{ return subgroupInclusive{2}(x); }}\n"
        "{0} {1}_exclusive({0} x) {{ return subgroupExclusive{2}(x); }}\n",
        t, name, native_op(op));
  }
  // In lane order over the active lanes: lanes [0, upto) (and this one when `self`).
  return fmt::format(
      "{0} {1}_combine({0} a, {0} b) {{ return {0}({2}); }}\n"
      "{0} {1}_over({0} x, uint upto) {{\n"
      "  uint act = sg_ballot(true).x;\n"
      "  sgx_{0}[gl_LocalInvocationIndex] = x;\n"
      "  memoryBarrierShared();\n"
      "  {0} r = {0}({3});\n"
      "  for (uint j = 0u; j < upto; ++j) {{\n"
      "    if (((act >> j) & 1u) != 0u) r = {1}_combine(r, sgx_{0}[sg_index() * SG_SIZE + j]);\n"
      "  }}\n"
      "  memoryBarrierShared();\n"
      "  return r;\n"
      "}}\n"
      "{0} {1}_reduce({0} x) {{ return {1}_over(x, SG_SIZE); }}\n"
      "{0} {1}_inclusive({0} x) {{ return {1}_over(x, sg_lane() + 1u); }}\n"
      "{0} {1}_exclusive({0} x) {{ return {1}_over(x, sg_lane()); }}\n",
      t, name, builtin_expression(op), builtin_identity_literal(op, type));
}

}  // namespace gpgpu::primitives
