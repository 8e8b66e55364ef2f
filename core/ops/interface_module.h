// What the core knows about one interface, in one place: its identity, its
// ops and their field tables, how a capability descriptor is read, checked
// and summarised, how a plugin's function table is checked, and the
// dispatching object's function table. The registry, selector, kernel and
// loader loop over the modules (core/ops/modules.h) and contain no
// per-interface code.
//
// A later major version of an interface (IGemm/2) is a module of its own; a
// plugin that still registers v1 is served by a shim module that adapts the
// v1 args and tables to v2 (one file per ABI version, as NCCL's
// src/plugin/ does), so the selector only ever sees the current layout.
#ifndef TEPLUG_CORE_OPS_INTERFACE_MODULE_H_
#define TEPLUG_CORE_OPS_INTERFACE_MODULE_H_

#include <cassert>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/config/op_facts.h"
#include "core/kernel/example_op.h"
#include "core/ops/capability_fields.h"
#include "core/ops/device_spelling.h"
#include "core/ops/field_table.h"
#include "core/ops/op_signature.h"
#include "core/ops/refusal.h"
#include "teplug/teplug.h"

namespace teplug::core {

class InterfaceModule;
struct Implementation;
struct OpSpec;

// One device an implementation serves, as a device interface (IDevice)
// enumerates it: what `teplug list` shows and tools open.
struct ServedDevice {
  std::string implementation;  // "reference/cpu"
  TeplugDevice device{};       // kind, vendor, ordinal, arch
  std::string name;            // "host CPU (16 threads)"; the plugin's text, escaped
  uint64_t memory_bytes = 0;   // 0: unknown
  bool host_pointers_usable = false;
};

// A validated copy of an implementation's capability descriptor. The core
// reads the plugin's descriptor once at registration (struct_size checked,
// known bits only, sane ranges) and keeps this copy, so selection never reads
// plugin memory. `caps` is the module's descriptor struct (TeplugGemmCaps,
// ...) with its `devices` pointer cleared: the device list is `devices`.
struct Capability {
  const InterfaceModule* module = nullptr;
  std::vector<TeplugDeviceSupport> devices;
  std::shared_ptr<const void> caps;
  size_t caps_size = 0;  // sizeof the descriptor struct `caps` points at

  // The descriptor as its module's struct; only that module asks, with its
  // own type (the size check catches a module asking with another's).
  template <class Caps>
  const Caps& As() const {
    assert(caps != nullptr && caps_size == sizeof(Caps));
    return *static_cast<const Caps*>(caps.get());
  }
  // Replaces the descriptor (tests build capabilities by hand).
  template <class Caps>
  void Set(const Caps& c) {
    caps = std::make_shared<const Caps>(c);
    caps_size = sizeof(Caps);
  }
};

// One op call as selection sees it, derived from the caller's args by the
// op's field table: where it runs, the facts config rules match on, and a
// one-line summary for decision records and logs.
struct OpDescription {
  const InterfaceModule* module = nullptr;
  const OpSpec* spec = nullptr;
  const void* args = nullptr;  // the caller's args struct (for `supports`)
  TeplugDevice device{};       // the op's device (host when no tensor names one)
  // The interface's own facts (their views point at static names); Facts()
  // adds interface, op, device kind and vendor.
  config::OpFacts facts;
  std::string device_kind;     // "cpu", "cuda", ...
  std::string vendor;          // "nvidia", "0x1234", or ""
  std::string summary;         // "gemm gemm fp32[64,32] x fp32[32,16] -> fp32[64,16] M=64 N=16 K=32 on cpu:0"
  int64_t world_size = 0;      // comm_create: the communicator's size
  int64_t hosts = 0;           // comm_create: the hosts its ranks are on (0: unknown)

  int32_t op() const;
  // The facts config rules are evaluated on (views into this object).
  config::OpFacts Facts() const;
};

// One op of an interface.
struct OpSpec {
  int32_t op;            // the op's number in its interface's ABI
  const char* name;      // its one spelling: "gemm", "forward", "quantize", "comm_create"
  const char* args_name; // "TeplugGemmArgs"
  // The args fields, each with its role (see field_table.h).
  absl::Span<const Field> fields;
  // Validates the args (sizes, required tensors, enum ranges) and describes
  // the op, spelling its device with `spelling`. INVALID_ARGUMENT names the
  // struct and field.
  absl::StatusOr<OpDescription> (*describe)(const InterfaceModule& module, const OpSpec& spec, const void* args,
                                            const DeviceSpelling& spelling);
  // The decision cache's key; false when the args cannot be keyed (then the
  // call is decided uncached and `describe` reports what is wrong).
  bool (*build_key)(const void* args, OpSignature* sig);
  // The static capability check (the device is checked by the selector).
  std::optional<Refusal> (*check)(const Capability& cap, const OpDescription& op);
  // Whether the implementation's `supports` hook is asked (false for
  // comm_create, whose args the ABI's `supports` does not take).
  bool ask_supports = true;
};

class InterfaceModule {
 public:
  virtual ~InterfaceModule() = default;

  // "gemm": the interface's one spelling in configs, logs and the CLI.
  virtual const char* name() const = 0;
  // "IGemm/1".
  virtual const char* display_name() const = 0;
  virtual const TeplugIID& iid() const = 0;
  virtual absl::Span<const OpSpec* const> ops() const = 0;

  // What config rules may match on, beside interface/op/device/vendor: the
  // facts its fields feed (from the field tables) and AddDerivedFacts'.
  config::InterfaceVocabulary Vocabulary() const;

  // Reads and validates a plugin's capability descriptor. Errors name the
  // struct and field ("TeplugAttentionCaps.head_dim_min 256 > head_dim_max 128").
  virtual absl::StatusOr<Capability> ReadCapability(const void* raw) const = 0;
  // One line describing what a descriptor accepts, for messages.
  virtual std::string SummarizeCapability(const Capability& cap) const = 0;
  // Every field of its descriptor after the device list, in struct order
  // (CoversDescriptor checks it), for CapabilityFields.
  virtual absl::Span<const CapsField> CapabilityFieldTable() const = 0;

  // Checks a plugin object's function table: non-NULL, at least the v1
  // size, base and mandatory functions present. A message naming the table
  // and field, or nullopt when usable.
  virtual std::optional<std::string> CheckTable(const TeplugObject* object) const = 0;
  // The table's `supports` hook (may be NULL). Only after CheckTable.
  virtual TeplugSupportsFn SupportsHook(const TeplugObject* object) const = 0;

  // The dispatching object's function table (a TeplugXxxV1Vtbl).
  virtual const void* DispatchTable() const = 0;

  // Appends the devices `impl` (an implementation of this interface) serves.
  // Only an interface that enumerates devices (IDevice) has any; errors name
  // the implementation and the call that failed.
  virtual absl::Status ListDevices(const Implementation& impl, std::vector<ServedDevice>* out) const {
    (void)impl;
    (void)out;
    return absl::OkStatus();
  }

  // The parameters an example of `op` is built from (core/kernel/examples.h,
  // `teplug explain`): every fact the op feeds is settable, by a parameter
  // named after it where one value sets it. FAILED_PRECONDITION with the
  // reason for an op that is not decided per call.
  virtual absl::StatusOr<std::vector<ExampleParam>> ExampleParams(const OpSpec& op) const = 0;
  // Builds an example of `op` into `out` (whose device is set) from values
  // checked against ExampleParams(op): sets out->args and what they point at.
  virtual void BuildExample(const OpSpec& op, const ExampleValues& values, ExampleOp* out) const = 0;

 protected:
  // Facts computed from several fields (GEMM's m, n, k), and ops decided
  // elsewhere than per call; the module's describe step fills them.
  virtual void AddDerivedFacts(config::InterfaceVocabulary*) const {}
  // For AddDerivedFacts: a fact naming a dtype, an integer fact, a fact
  // naming one of `values`.
  static void AddDTypeFact(config::InterfaceVocabulary* v, const std::string& name, const std::string& doc);
  static void AddIntegerFact(config::InterfaceVocabulary* v, const std::string& name, const std::string& doc);
  static void AddNameFact(config::InterfaceVocabulary* v, const std::string& name, const std::string& doc,
                          std::vector<std::string> values);

 public:

  // The op numbered `op`, or nullptr.
  const OpSpec* FindOp(int32_t op) const;
  // The op named `name`, or nullptr.
  const OpSpec* FindOp(absl::string_view name) const;
  // Position in the module list (modules.h): indexes per-interface arrays.
  // Set by the first InterfaceModules() call, which every kernel makes when
  // it is created, before any state that uses it exists.
  int index() const { return index_; }

 private:
  friend absl::Span<const InterfaceModule* const> InterfaceModules();
  mutable int index_ = -1;  // set once by InterfaceModules()
};

// The op numbered `op` of `module` described (its args validated), its
// device spelled by `spelling`; INVALID_ARGUMENT for an op the interface
// does not have.
absl::StatusOr<OpDescription> DescribeOp(const InterfaceModule& module, int32_t op, const void* args,
                                         const DeviceSpelling& spelling = AbiDeviceSpelling());
// The op's decision-cache key; false when it cannot be keyed (unknown op,
// malformed args, collectives).
bool BuildSignature(const InterfaceModule& module, int32_t op, const void* args, OpSignature* sig);
inline absl::StatusOr<Capability> ReadCapability(const InterfaceModule& module, const void* raw) {
  return module.ReadCapability(raw);
}
// The device check, then the op's static capability check.
std::optional<Refusal> CheckCapability(const Capability& cap, const OpDescription& op);

// "devices {cpu}; A {fp32} B {fp32} D {fp32}; bias": what a descriptor
// accepts, in one line.
std::string SummarizeCapability(const Capability& cap);
// Every field of the descriptor, "devices" (the device list) first, then its
// module's CapabilityFieldTable: what `teplug list` shows.
std::vector<CapabilityField> CapabilityFields(const Capability& cap);

// Every interface this core serves, in a fixed order (modules.cc).
absl::Span<const InterfaceModule* const> InterfaceModules();

inline int32_t OpDescription::op() const { return spec->op; }

}  // namespace teplug::core

#endif  // TEPLUG_CORE_OPS_INTERFACE_MODULE_H_
