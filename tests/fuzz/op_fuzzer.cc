// Fuzz target: what selection reads from a caller's op args — DescribeOp,
// the op signature the decision cache keys on (BuildSignature), and the
// static capability check (CheckCapability) — for every interface's args
// (gemm, attention forward and backward, quantize, dequantize, collectives,
// comm_create, and mismatched interface/op pairs), with tensors, params and
// quantization structs of any struct_size, rank, shape, strides and dtype.
//
// Byte format: one op (op_args.h), then u8 count (mod 4) capability
// descriptors (abi_blobs.h DecodeCapability); those ReadCapability accepts
// are checked against the op, together with one descriptor per interface
// that accepts everything, so every check of an op is reached.
//
// What must hold: DescribeOp describes or refuses with InvalidArgument and a
// printable message; a description is of the op asked about; every
// refusal formats to a non-empty line. And what the decision cache relies
// on: the signature is deterministic, ignores what changes from call to call
// (variant 1 of op_args.h changes only that), and two calls with equal
// signatures get the same description facts and the same capability
// verdicts — otherwise a cached decision would be wrong for the second call.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/config/default_config.h"
#include "core/config/config_snapshot.h"
#include "core/log/untrusted_text.h"
#include "core/ops/interface_module.h"
#include "core/ops/modules.h"
#include "core/ops/gemm.h"
#include "core/ops/attention.h"
#include "core/ops/quantizer.h"
#include "core/ops/collective.h"
#include "core/ops/modules.h"
#include "core/ops/gemm.h"
#include "core/ops/attention.h"
#include "core/ops/quantizer.h"
#include "core/ops/collective.h"
#include "core/ops/op_signature.h"
#include "teplug/teplug.h"
#include "tests/fuzz/abi_blobs.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/op_args.h"

namespace teplug::fuzz {
namespace {

using core::Capability;
using core::OpDescription;
using core::Refusal;

// One descriptor per interface that every op of it passes, so the checks
// behind the device and dtype stages run.
const std::vector<Capability>& AcceptEverything() {
  static const auto* caps = [] {
    static const TeplugDeviceSupport kAnyDevice = {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_ANY, 0, 0, 0};
    constexpr uint64_t kDTypes = ((uint64_t{1} << TEPLUG_DTYPE_COUNT_) - 1) & ~uint64_t{1};
    TeplugGemmCaps gemm = {sizeof gemm, &kAnyDevice, 1, kDTypes, kDTypes, kDTypes, 0xf,
                           (1u << TEPLUG_SCALING_COUNT_) - 1, 0, 0};
    TeplugAttentionCaps attention = {sizeof attention, &kAnyDevice, 1, kDTypes, (1u << TEPLUG_LAYOUT_COUNT_) - 1,
                                     (1u << TEPLUG_MASK_COUNT_) - 1, (1u << TEPLUG_BIAS_COUNT_) - 1, 0x3f,
                                     0, 0, 0, 0, 0};
    TeplugQuantizerCaps quantizer = {sizeof quantizer, &kAnyDevice, 1, kDTypes, kDTypes,
                                     (1u << TEPLUG_SCALING_COUNT_) - 1, 0xf};
    TeplugCollectiveCaps collective = {sizeof collective, &kAnyDevice, 1, kDTypes,
                                       ((1u << (TEPLUG_OP_BARRIER + 1)) - 1) & ~((1u << TEPLUG_OP_ALL_REDUCE) - 1),
                                       (1u << TEPLUG_REDUCE_COUNT_) - 1, 0};
    auto* out = new std::vector<Capability>;
    for (auto [module, raw] : {std::pair<const core::InterfaceModule*, const void*>{&core::GemmModule(), &gemm},
                               {&core::AttentionModule(), &attention},
                               {&core::QuantizerModule(), &quantizer},
                               {&core::CollectiveModule(), &collective}}) {
      absl::StatusOr<Capability> cap = module->ReadCapability(raw);
      TEPLUG_FUZZ_CHECK(cap.ok(), cap.status().ToString());
      out->push_back(*cap);
    }
    return out;
  }();
  return *caps;
}

const config::ConfigSnapshot& DefaultSnapshot() {
  static const auto* snapshot = [] {
    absl::StatusOr<config::ValidatedConfig> config = config::DefaultConfig();
    TEPLUG_FUZZ_CHECK(config.ok(), config.status().ToString());
    return new std::shared_ptr<const config::ConfigSnapshot>(config::ConfigSnapshot::Create(*config, 1));
  }();
  return **snapshot;
}

bool SameRefusal(const std::optional<Refusal>& a, const std::optional<Refusal>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a.has_value()) return true;
  return a->kind == b->kind && std::strcmp(a->what, b->what) == 0 && a->value == b->value &&
         a->names == b->names && a->count == b->count && a->format == b->format &&
         a->value2 == b->value2 && a->limit == b->limit && a->mask == b->mask &&
         std::memcmp(&a->real, &b->real, sizeof a->real) == 0 &&
         std::memcmp(&a->device, &b->device, sizeof a->device) == 0;
}

bool SameFacts(const config::OpFacts& a, const config::OpFacts& b) {
  if (a.interface_name != b.interface_name || a.op != b.op || a.device_kind != b.device_kind ||
      a.vendor != b.vendor || a.num_facts != b.num_facts) {
    return false;
  }
  for (int i = 0; i < a.num_facts; ++i) {
    const config::OpFacts::Value& x = a.facts[i];
    const config::OpFacts::Value& y = b.facts[i];
    if (x.name != y.name || x.text != y.text || x.number != y.number || x.known != y.known) return false;
  }
  return true;
}

std::string Described(const std::optional<Refusal>& r, const Capability& cap) {
  return r.has_value() ? core::FormatRefusal(*r, cap.devices) : "accepted";
}

// What one description says, checked on its own.
void CheckDescription(const OpDescription& d, const DecodedOp& op, const std::vector<Capability>& caps) {
  TEPLUG_FUZZ_CHECK(d.module == op.module, "described under another interface");
  TEPLUG_FUZZ_CHECK(d.op() == op.op, "described as another op");
  TEPLUG_FUZZ_CHECK(d.args == op.args, "described other args");
  TEPLUG_FUZZ_CHECK(!d.summary.empty() && core::IsSafeText(d.summary),
                    absl::StrCat("bad summary: ", core::EscapeUntrustedText(d.summary)));
  const config::OpFacts facts = d.Facts();
  for (const config::CompiledRule* rule : DefaultSnapshot().Evaluate(facts).matched()) {
    TEPLUG_FUZZ_CHECK(rule->Matches(facts), "a rule that does not match");
  }
  for (const Capability& cap : caps) {
    if (cap.module != d.module) continue;
    const std::optional<Refusal> r = core::CheckCapability(cap, d);
    if (r.has_value()) {
      const std::string text = core::FormatRefusal(*r, cap.devices);
      TEPLUG_FUZZ_CHECK(!text.empty() && core::IsSafeText(text), core::EscapeUntrustedText(text));
    }
    TEPLUG_FUZZ_CHECK(!core::SummarizeCapability(cap).empty(), "empty capability summary");
  }
}

// Two calls with the same signature must be decided alike.
void CheckSameDecision(const absl::StatusOr<OpDescription>& first, const absl::StatusOr<OpDescription>& next,
                       const std::vector<Capability>& caps) {
  TEPLUG_FUZZ_CHECK(first.ok() == next.ok(),
                    absl::StrCat("equal signatures, but one call is described and the other refused: ",
                                 (first.ok() ? next : first).status().ToString()));
  if (!first.ok()) return;
  const OpDescription& a = *first;
  const OpDescription& b = *next;
  TEPLUG_FUZZ_CHECK(SameFacts(a.Facts(), b.Facts()), "equal signatures, different facts for config rules");
  TEPLUG_FUZZ_CHECK(std::memcmp(&a.device, &b.device, sizeof a.device) == 0, "equal signatures, different devices");
  for (const Capability& cap : caps) {
    if (cap.module != a.module) continue;
    const std::optional<Refusal> ra = core::CheckCapability(cap, a);
    const std::optional<Refusal> rb = core::CheckCapability(cap, b);
    TEPLUG_FUZZ_CHECK(SameRefusal(ra, rb), absl::StrCat("equal signatures, different capability verdicts: \"",
                                                        Described(ra, cap), "\" and \"", Described(rb, cap),
                                                        "\" (", core::SummarizeCapability(cap), ")"));
  }
}

void Run(const uint8_t* data, size_t size) {
  BlobArena arena;
  FuzzInput in(data, size);
  const DecodedOp op = DecodeOp(in, arena, /*variant=*/0);
  std::vector<Capability> caps = AcceptEverything();
  for (int n = in.Take<uint8_t>() % 4, i = 0; i < n; ++i) {
    absl::StatusOr<Capability> cap = op.module->ReadCapability(DecodeCapability(in, arena));
    if (cap.ok()) caps.push_back(*std::move(cap));
  }
  FuzzInput again(data, size);
  const DecodedOp next = DecodeOp(again, arena, /*variant=*/1);

  const absl::StatusOr<OpDescription> described = core::DescribeOp(*op.module, op.op, op.args);
  if (described.ok()) {
    CheckDescription(*described, op, caps);
  } else {
    TEPLUG_FUZZ_CHECK(described.status().code() == absl::StatusCode::kInvalidArgument,
                      described.status().ToString());
    TEPLUG_FUZZ_CHECK(!described.status().message().empty() && core::IsSafeText(described.status().message()),
                      core::EscapeUntrustedText(described.status().message()));
  }

  core::OpSignature signature, same_call, next_call;
  const bool keyed = core::BuildSignature(*op.module, op.op, op.args, &signature);
  TEPLUG_FUZZ_CHECK(keyed == core::BuildSignature(*op.module, op.op, op.args, &same_call) &&
                        (!keyed || (signature == same_call && signature.hash() == same_call.hash())),
                    "the signature of one call changed between two builds");
  const bool next_keyed = core::BuildSignature(*next.module, next.op, next.args, &next_call);
  TEPLUG_FUZZ_CHECK(keyed == next_keyed, "only one of two calls differing in unkeyed fields is keyable");
  if (!keyed) return;
  TEPLUG_FUZZ_CHECK(signature == next_call && signature.hash() == next_call.hash(),
                    "addresses, handles, alpha/beta, softmax_scale or RNG state changed the signature");
  CheckSameDecision(described, core::DescribeOp(*next.module, next.op, next.args), caps);
}

}  // namespace
}  // namespace teplug::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  teplug::fuzz::Run(data, size);
  return 0;
}
