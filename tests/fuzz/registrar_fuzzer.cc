// Fuzz target: the staging registrar a plugin's entry receives, fed with
// registrations built from fuzz bytes — TeplugImplementationDesc of any
// struct_size, IIDs, names, capability descriptors of any type and size with
// device lists of any count and stride, and objects whose function tables
// are fuzz-shaped but made of host code (fake_objects.h) — interleaved with
// NULL descriptors, Close() and direct ReadCapability calls.
//
// Byte format: u8 ABI selector (0: the plugin info names the host's range;
// else two raw u32s abi_min, abi_max follow), then up to kMaxCommands
// commands, each a u8 (mod 8):
//   0-4  register a descriptor: DecodeStruct<TeplugImplementationDesc>
//        whose pointers decode as: u8 IID selector (0-3 the v1 IIDs of
//        gemm/attention/quantizer/collective, 4 IObject, else the raw IID),
//        an object (FakeObjects::Decode), u8 capability present (0: NULL,
//        else DecodeCapability), u8 name code (0: NULL, else code-1 bytes
//        of name, NUL-terminated)
//   5    register a NULL descriptor
//   6    Close() (the entry returned)
//   7    ReadCapability: u8 interface (an index into InterfaceModules(), modulo their count), DecodeCapability
//
// What must hold: every answer is NULL or a well-formed error (known code,
// printable message naming the problem, destroy set); NULL exactly when a
// registration was staged, with a valid name, the IID's kind and a
// descriptor that re-validates; after Close() every call is
// FAILED_PRECONDITION; the host holds exactly one reference per staged
// registration and none once the registrar and its staged list are gone.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/loader/abi_range.h"
#include "core/loader/staging_registrar.h"
#include "core/log/untrusted_text.h"
#include "core/ops/interface_module.h"
#include "core/ops/modules.h"
#include "teplug/sdk/iids.hpp"
#include "teplug/teplug.h"
#include "tests/fuzz/abi_blobs.h"
#include "tests/fuzz/fake_objects.h"
#include "tests/fuzz/fuzz_input.h"

namespace teplug::fuzz {
namespace {

using core::Capability;
using core::StagingRegistrar;

constexpr int kMaxCommands = 64;
constexpr uint32_t kHostAbi = TEPLUG_ABI_VERSION_CURRENT;

// The one place the registrar is made: the loader's way, adapted here when
// its construction changes.
std::unique_ptr<StagingRegistrar> MakeRegistrar(const TeplugPluginInfo* info) {
  return std::make_unique<StagingRegistrar>(info, kHostAbi, kHostAbi);
}

TeplugIID DecodeIid(FuzzInput& in, const TeplugIID& raw) {
  switch (in.Take<uint8_t>()) {
    case 0: return sdk::kIidGemmV1;
    case 1: return sdk::kIidAttentionV1;
    case 2: return sdk::kIidQuantizerV1;
    case 3: return sdk::kIidCollectiveV1;
    case 4: return sdk::kIidObject;
    default: return raw;
  }
}

const char* DecodeName(FuzzInput& in, BlobArena& arena) {
  const uint8_t code = in.Take<uint8_t>();
  if (code == 0) return nullptr;
  const size_t length = code - 1;
  auto* name = static_cast<char*>(arena.Allocate(length + 1));
  in.TakeBytes(name, length);
  name[length] = '\0';
  return name;
}

const TeplugImplementationDesc* DecodeDesc(FuzzInput& in, BlobArena& arena, FakeObjects& objects) {
  return DecodeStruct<TeplugImplementationDesc>(in, arena, [&](TeplugImplementationDesc& d) {
    d.iid = DecodeIid(in, d.iid);
    d.object = objects.Decode(in, arena) == nullptr ? nullptr : &objects.objects().back()->base;
    d.capability = in.Take<uint8_t>() == 0 ? nullptr : DecodeCapability(in, arena);
    d.name = DecodeName(in, arena);
  });
}

// Returns the error's code (TEPLUG_OK for NULL) after checking and
// destroying it.
int32_t Consume(TeplugError* error) {
  if (error == nullptr) return TEPLUG_OK;
  TEPLUG_FUZZ_CHECK(error->struct_size >= TEPLUG_STRUCT_SIZE(TeplugError, destroy), "short TeplugError");
  TEPLUG_FUZZ_CHECK(error->code > TEPLUG_OK && error->code <= TEPLUG_FAILED_PRECONDITION,
                    absl::StrCat("error code ", error->code));
  TEPLUG_FUZZ_CHECK(error->message != nullptr && error->message[0] != '\0', "error without a message");
  TEPLUG_FUZZ_CHECK(core::IsSafeText(error->message),
                    absl::StrCat("error message with unescaped bytes: ", core::EscapeUntrustedText(error->message)));
  TEPLUG_FUZZ_CHECK(error->destroy != nullptr, "error without destroy");
  const int32_t code = error->code;
  error->destroy(error);
  return code;
}

// Whether the host can give a reference on `object` back: a table holding
// a release function. (query_interface may hand out another object that
// cannot; the host must then keep the reference rather than crash.)
bool Releasable(const FakeObject& object) {
  const TeplugObjectVtbl* table = object.base.vtbl;
  return table != nullptr && table->struct_size >= TEPLUG_STRUCT_SIZE(TeplugObjectVtbl, release) &&
         table->release != nullptr;
}

// The references the host must hold: one per staged registration.
void CheckReferences(const FakeObjects& objects, const std::vector<core::StagedImplementation>& staged) {
  for (const auto& object : objects.objects()) {
    if (!Releasable(*object)) continue;
    int64_t expected = 0;
    for (const core::StagedImplementation& s : staged) {
      if (s.object.get() == &object->base) ++expected;
    }
    TEPLUG_FUZZ_CHECK(object->host_references == expected,
                      absl::StrCat("the host holds ", object->host_references, " references on an object ",
                                   expected, " staged registrations hold"));
  }
}

// A copy the host made of a descriptor reads back as itself: validation
// accepts its own output and loses nothing.
void CheckRevalidates(const Capability& capability) {
  // Every descriptor starts with struct_size, devices and num_devices (the
  // ABI's rule); the copy's devices pointer is NULL, so point it at the list.
  struct Header {
    size_t struct_size;
    const TeplugDeviceSupport* devices;
    size_t num_devices;
  };
  std::vector<unsigned char> raw(static_cast<const unsigned char*>(capability.caps.get()),
                                 static_cast<const unsigned char*>(capability.caps.get()) + capability.caps_size);
  Header header;
  std::memcpy(&header, raw.data(), sizeof header);
  header.devices = capability.devices.data();
  std::memcpy(raw.data(), &header, sizeof header);
  const absl::StatusOr<Capability> again = capability.module->ReadCapability(raw.data());
  TEPLUG_FUZZ_CHECK(again.ok(), absl::StrCat("the host's own copy of a descriptor is refused: ",
                                             again.status().ToString()));
  TEPLUG_FUZZ_CHECK(again->module == capability.module, "re-read under another interface");
  TEPLUG_FUZZ_CHECK(again->devices.size() == capability.devices.size(), "re-read lost devices");
  for (size_t i = 0; i < again->devices.size(); ++i) {
    TEPLUG_FUZZ_CHECK(std::memcmp(&again->devices[i], &capability.devices[i], sizeof(TeplugDeviceSupport)) == 0,
                      absl::StrCat("device ", i, " changed when re-read"));
  }
  TEPLUG_FUZZ_CHECK(again->caps_size == capability.caps_size &&
                        std::memcmp(again->caps.get(), capability.caps.get(), capability.caps_size) == 0,
                    "the descriptor changed when re-read");
}

bool ValidName(const std::string& name) {
  if (name.empty() || name.size() > 63) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

// A staged registration is what the descriptor said, validated.
void CheckStaged(const core::StagedImplementation& s, const TeplugImplementationDesc& desc) {
  TEPLUG_FUZZ_CHECK(core::ModuleOfIid(desc.iid) != nullptr && core::ModuleOfIid(desc.iid) == s.module,
                    "staged under another interface than its IID");
  TEPLUG_FUZZ_CHECK(ValidName(s.name), absl::StrCat("staged an invalid name: ", core::EscapeUntrustedText(s.name)));
  TEPLUG_FUZZ_CHECK(desc.name != nullptr ? s.name == desc.name : s.name == "default", "staged another name");
  TEPLUG_FUZZ_CHECK(s.object.get() == desc.object, "staged another object");
  TEPLUG_FUZZ_CHECK(s.priority == desc.priority, "staged another priority");
  CheckRevalidates(s.capability);
}

void Run(FuzzInput& in) {
  TeplugPluginInfo info{};
  info.struct_size = sizeof info;
  info.abi_min = info.abi_max = kHostAbi;
  if (in.Take<uint8_t>() != 0) {
    info.abi_min = in.Take<uint32_t>();
    info.abi_max = in.Take<uint32_t>();
  }
  const bool abi_ok = core::AbiRangesOverlap(info.abi_min, info.abi_max, kHostAbi, kHostAbi);

  BlobArena arena;
  FakeObjects objects;
  {
    std::unique_ptr<StagingRegistrar> registrar = MakeRegistrar(&info);
    TeplugRegistrar* c = registrar->c_registrar();
    TEPLUG_FUZZ_CHECK(c != nullptr && c->struct_size >= TEPLUG_STRUCT_SIZE(TeplugRegistrar, register_implementation) &&
                          c->register_implementation != nullptr,
                      "malformed registrar");
    bool closed = false;
    for (int i = 0; i < kMaxCommands && !in.empty(); ++i) {
      const uint8_t command = in.Take<uint8_t>() % 8;
      if (command == 6) {
        registrar->Close();
        closed = true;
        continue;
      }
      if (command == 7) {
        const auto modules = core::InterfaceModules();
        const core::InterfaceModule* module = modules[in.Take<uint8_t>() % modules.size()];
        const absl::StatusOr<Capability> read = module->ReadCapability(DecodeCapability(in, arena));
        if (read.ok()) {
          CheckRevalidates(*read);
        } else {
          TEPLUG_FUZZ_CHECK(read.status().code() == absl::StatusCode::kInvalidArgument, read.status().ToString());
        }
        continue;
      }
      const TeplugImplementationDesc* desc = command == 5 ? nullptr : DecodeDesc(in, arena, objects);
      const size_t staged_before = registrar->staged().size();
      const int32_t code = Consume(c->register_implementation(c, desc));
      const size_t staged_after = registrar->staged().size();
      if (closed) {
        TEPLUG_FUZZ_CHECK(code == TEPLUG_FAILED_PRECONDITION, absl::StrCat("a call after Close() answered ", code));
      } else if (!abi_ok) {
        TEPLUG_FUZZ_CHECK(code == TEPLUG_ABI_MISMATCH,
                          absl::StrCat("a call before the info names an overlapping ABI answered ", code));
      }
      if (code == TEPLUG_OK) {
        TEPLUG_FUZZ_CHECK(desc != nullptr && staged_after == staged_before + 1, "success without a staged registration");
        CheckStaged(registrar->staged().back(), *desc);
      } else {
        TEPLUG_FUZZ_CHECK(staged_after == staged_before, "a refused registration was staged");
      }
      CheckReferences(objects, registrar->staged());
    }
    // The loader takes the staged list on success and drops it on failure;
    // either way the registrar goes, then the list.
    std::vector<core::StagedImplementation> staged = std::move(registrar->staged());
    registrar.reset();
    CheckReferences(objects, staged);
  }
  CheckReferences(objects, {});
}

}  // namespace
}  // namespace teplug::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  teplug::fuzz::FuzzInput in(data, size);
  teplug::fuzz::Run(in);
  return 0;
}
