#include "tools/teplug/conformance_device.h"

#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "teplug/sdk/device_context.hpp"
#include "teplug/sdk/iids.hpp"
#include "teplug/sdk/struct_io.hpp"
#include "teplug/teplug.h"
#include "tools/teplug/conformance_contract.h"

namespace teplug::cli {
namespace {

constexpr const char* kChecks[] = {"device_info", "memory", "streams", "refusals"};

struct DeviceCase {
  std::string check = "memory";
  int64_t bytes = 4099;  // memory, streams: bytes per copy
  bool stream = false;   // memory: copies ordered on a stream
};

std::string Format(const DeviceCase& c) {
  return absl::StrCat("check=", c.check, ",bytes=", c.bytes, ",stream=", int{c.stream});
}

absl::StatusOr<DeviceCase> Parse(const std::string& text) {
  DeviceCase c;
  const absl::Status parsed =
      ForEachCaseItem(text, [&](const std::string& key, const std::string& value) -> absl::Status {
        auto bad = [&](const std::string& want) { return BadCaseValue(key, value, want); };
        if (key == "check") {
          bool known = false;
          for (const char* k : kChecks) known = known || value == k;
          if (!known) return bad("device_info, memory, streams or refusals");
          c.check = value;
        } else if (key == "bytes") {
          if (!absl::SimpleAtoi(value, &c.bytes) || c.bytes < 1 || c.bytes > (int64_t{1} << 26))
            return bad("an integer in [1, 2^26]");
        } else if (key == "stream") {
          if (value != "0" && value != "1") return bad("0 or 1");
          c.stream = value == "1";
        } else {
          return absl::InvalidArgumentError(
              absl::StrCat("--case: unknown key \"", key, "\" (keys: check, bytes, stream)"));
        }
        return absl::OkStatus();
      });
  if (!parsed.ok()) return parsed;
  return c;
}

std::vector<std::string> Exercised(const DeviceCase& c) {
  std::vector<std::string> e = {Claim("calls", c.check)};
  if (c.check == "memory" && c.stream) e.push_back(Claim("calls", "streams"));
  return e;
}

std::vector<std::string> AllClaims() {
  std::vector<std::string> all;
  for (const char* k : kChecks) all.push_back(Claim("calls", k));
  return all;
}

bool Checkable(const std::string& claim) { return HasClaim(AllClaims(), claim); }

std::vector<PlannedCase> Plan(const std::vector<std::string>& claims, bool quick, uint64_t seed) {
  std::vector<DeviceCase> cases = {{"device_info", 1, false},
                                   {"memory", 4099, false},
                                   {"memory", 65537, true},
                                   {"streams", 1000, false},
                                   {"refusals", 1, false}};
  if (!quick) cases.push_back({"memory", 1, false});
  std::vector<PlannedCase> plan;
  for (const DeviceCase& c : cases)
    if (HasClaim(claims, Claim("calls", c.check)))
      plan.push_back({Format(c), seed + 7919 * plan.size(), Exercised(c)});
  return plan;
}

absl::StatusOr<std::vector<std::string>> ParseCase(const std::string& text) {
  absl::StatusOr<DeviceCase> c = Parse(text);
  if (!c.ok()) return c.status();
  return Exercised(*c);
}

TeplugDevice Cpu(int32_t ordinal) {
  TeplugDevice d = sdk::Versioned<TeplugDevice>();
  d.kind = TEPLUG_DEVICE_CPU;
  d.ordinal = ordinal;
  return d;
}

// The implementation `provider` serves `device` with.
absl::StatusOr<core::Selection> SelectFor(const core::Kernel& plugin, const std::string& provider,
                                          const TeplugDevice& device) {
  TeplugDeviceOpenArgs open = sdk::Versioned<TeplugDeviceOpenArgs>();
  open.device = &device;
  return plugin.Select(sdk::kIidDeviceV1, TEPLUG_DEVICE_OP_OPEN, &open, provider);
}

// The implementation serving `where`'s device, or cpu:0 without one.
absl::StatusOr<core::Selection> Select(const core::Kernel& plugin, const std::string& provider,
                                       const std::string&, const CaseDevice* where) {
  return SelectFor(plugin, provider, where == nullptr ? Cpu(0) : where->device);
}

// Every device the implementation enumerates, or the problem.
std::string Enumerate(TeplugDeviceV1* dev, std::vector<TeplugDeviceInfo>* out) {
  size_t count = 0;
  if (std::string e = TakeError(dev->vtbl->device_count(dev, &count), "device_count"); !e.empty())
    return e;
  if (count == 0) return "device_count is 0: an IDevice serves at least one device";
  std::set<std::pair<int32_t, int32_t>> seen;
  for (size_t i = 0; i < count; ++i) {
    TeplugDeviceInfo info = sdk::Versioned<TeplugDeviceInfo>();
    std::memset(info.name, 0x7F, sizeof info.name);  // a name left unterminated shows
    const std::string call = absl::StrCat("device_info(", i, ")");
    if (std::string e = TakeError(dev->vtbl->device_info(dev, i, &info), call.c_str()); !e.empty())
      return e;
    const std::string named =
        absl::StrCat(call, " (kind ", info.kind, ", ordinal ", info.ordinal, ")");
    if (info.kind <= TEPLUG_DEVICE_ANY) return absl::StrCat(named, ": kind must name a device");
    if (info.ordinal < 0) return absl::StrCat(named, ": ordinal must be >= 0");
    if (!seen.insert({info.kind, info.ordinal}).second)
      return absl::StrCat(named, ": the same kind and ordinal as an earlier device");
    if (std::memchr(info.name, '\0', sizeof info.name) == nullptr)
      return absl::StrCat(named, ": name is not NUL-terminated within its 64 bytes");
    if (info.name[0] == '\0') return absl::StrCat(named, ": name is empty");
    if (info.kind == TEPLUG_DEVICE_CPU && info.host_pointers_usable == 0)
      return absl::StrCat(named, ": a cpu device's host_pointers_usable must be nonzero");
    if (info.reserved0 != 0) return absl::StrCat(named, ": reserved0 must be 0");
    out->push_back(info);
  }
  TeplugDeviceInfo past = sdk::Versioned<TeplugDeviceInfo>();
  return CheckErrorObject(dev->vtbl->device_info(dev, count, &past),
                          absl::StrCat("device_info(", count, "), one past the count"));
}

// An opened context (the SDK's DeviceContext) with what it allocated and
// the streams it made, released in the right order (streams, memory, the
// context) by Close; each call's problem as TakeError words it.
class OpenedDevice {
 public:
  explicit OpenedDevice(TeplugDeviceV1* dev) : dev_(dev) {}
  ~OpenedDevice() { Close(); }
  std::string Open(const TeplugDevice& device) {
    if (std::string e = TakeError(sdk::DeviceContext::Open(dev_, device, &ctx_).release(), "open");
        !e.empty())
      return e;
    if (ctx_->get() != nullptr) return "";
    ctx_.reset();  // holds no context, so nothing is closed
    return "open succeeded but wrote no context";
  }
  std::string Allocate(size_t bytes, void** out) {
    if (std::string e = TakeError(ctx_->Allocate(bytes, 0, out).release(), "allocate"); !e.empty())
      return e;
    if (*out == nullptr) return "allocate succeeded but wrote no address";
    memory_.push_back(*out);
    return "";
  }
  std::string Copy(int32_t kind, void* dst, const void* src, size_t bytes, TeplugStream stream) {
    return TakeError(ctx_->Copy(kind, dst, src, bytes, stream).release(), "copy");
  }
  std::string CreateStream(TeplugStream* out) {
    std::string e = TakeError(ctx_->CreateStream(out).release(), "stream_create");
    if (e.empty()) streams_.push_back(*out);
    return e;
  }
  std::string Synchronize(TeplugStream s) {
    return TakeError(ctx_->SynchronizeStream(s).release(), "stream_synchronize");
  }
  // Destroys the streams, frees the memory and closes; the first problem.
  std::string Close() {
    if (ctx_ == nullptr) return "";
    std::string first;
    auto note = [&](std::string e) {
      if (first.empty()) first = std::move(e);
    };
    for (TeplugStream s : streams_)
      note(TakeError(ctx_->DestroyStream(s).release(), "stream_destroy"));
    for (void* p : memory_) note(TakeError(ctx_->Deallocate(p).release(), "deallocate"));
    note(TakeError(ctx_->Close().release(), "close"));
    streams_.clear();
    memory_.clear();
    ctx_.reset();
    return first;
  }
  TeplugDeviceContext* context() const { return ctx_ == nullptr ? nullptr : ctx_->get(); }

 private:
  TeplugDeviceV1* dev_;
  std::unique_ptr<sdk::DeviceContext> ctx_;
  std::vector<void*> memory_;
  std::vector<TeplugStream> streams_;
};

// host -> device -> device -> host of `bytes` random bytes, on `stream`
// (NULL: synchronous); the bytes back must equal the bytes sent.
std::string RoundTrip(OpenedDevice* d, size_t bytes, TeplugStream stream, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> sent(bytes), back(bytes, 0);
  for (uint8_t& b : sent) b = static_cast<uint8_t>(rng());
  void *first = nullptr, *second = nullptr;
  if (std::string e = d->Allocate(bytes, &first); !e.empty()) return e;
  if (std::string e = d->Allocate(bytes, &second); !e.empty()) return e;
  if (std::string e = d->Copy(TEPLUG_COPY_HOST_TO_DEVICE, first, sent.data(), bytes, stream);
      !e.empty())
    return e;
  if (std::string e = d->Copy(TEPLUG_COPY_DEVICE_TO_DEVICE, second, first, bytes, stream);
      !e.empty())
    return e;
  if (std::string e = d->Copy(TEPLUG_COPY_DEVICE_TO_HOST, back.data(), second, bytes, stream);
      !e.empty())
    return e;
  if (stream != nullptr)
    if (std::string e = d->Synchronize(stream); !e.empty()) return e;
  for (size_t i = 0; i < bytes; ++i) {
    if (sent[i] != back[i])
      return absl::StrFormat(
          "host->device->device->host: byte %d came back 0x%02x, 0x%02x was sent", i, back[i],
          sent[i]);
  }
  return "";
}

// Each refusal the contract asks for: the call fails with a well-formed
// error whose message says why.
std::string Refusals(TeplugDeviceV1* dev, const TeplugDevice& served, size_t served_count) {
  TeplugDevice bad = served;
  bad.ordinal = static_cast<int32_t>(served_count) + 7;
  TeplugDeviceOpenArgs open = sdk::Versioned<TeplugDeviceOpenArgs>();
  open.device = &bad;
  const std::string what = absl::StrCat("open of ordinal ", bad.ordinal, " (not served)");
  if (std::string e = CheckSupportsReason(dev->vtbl->supports, reinterpret_cast<TeplugObject*>(dev),
                                          TEPLUG_DEVICE_OP_OPEN, &open, what);
      !e.empty())
    return e;
  TeplugDeviceContext* ctx = nullptr;
  TeplugError* refused = dev->vtbl->open(dev, &open, &ctx);
  if (refused == nullptr) {
    if (ctx != nullptr) dev->vtbl->close(dev, ctx);
    return absl::StrCat(what, " succeeded; it must be refused with a reason");
  }
  if (refused->struct_size >= TEPLUG_STRUCT_SIZE(TeplugError, message) &&
      (refused->message == nullptr || refused->message[0] == '\0')) {
    if (refused->destroy != nullptr) refused->destroy(refused);
    return absl::StrCat(what, ": refused without a reason (empty message)");
  }
  if (std::string e = CheckRefused(refused, what); !e.empty()) return e;
  OpenedDevice d(dev);
  if (std::string e = d.Open(served); !e.empty()) return e;
  TeplugAllocateArgs zero = sdk::Versioned<TeplugAllocateArgs>();
  zero.context = d.context();
  void* p = nullptr;
  TeplugAllocateArgs misaligned = zero;
  misaligned.bytes = 64;
  misaligned.alignment = 3;
  uint8_t byte = 0;
  TeplugCopyArgs no_context = sdk::Versioned<TeplugCopyArgs>();
  no_context.kind = TEPLUG_COPY_HOST_TO_DEVICE;
  no_context.dst = &byte;
  no_context.src = &byte;
  no_context.bytes = 1;
  const std::pair<TeplugError*, std::string> refusals[] = {
      {dev->vtbl->allocate(dev, &zero, &p), "allocate of 0 bytes"},
      {dev->vtbl->allocate(dev, &misaligned, &p), "allocate with alignment 3"},
      {dev->vtbl->copy(dev, &no_context), "copy with a NULL context"}};
  std::string first;
  for (const auto& [error, call] : refusals) {
    // device.h: malformed calls are INVALID_ARGUMENT.
    const bool readable =
        error != nullptr && error->struct_size >= TEPLUG_STRUCT_SIZE(TeplugError, code);
    const int32_t code = readable ? error->code : TEPLUG_INVALID_ARGUMENT;
    std::string e = CheckErrorObject(error, call);
    if (e.empty() && code != TEPLUG_INVALID_ARGUMENT)
      e = absl::StrCat(call, " returned ", teplug_code_name(code),
                       "; device.h answers a malformed call with ",
                       teplug_code_name(TEPLUG_INVALID_ARGUMENT));
    if (first.empty()) first = e;
  }
  if (!first.empty()) return first;
  return d.Close();
}

// Runs the check of `text` on `device` (the CPU: cpu:0), `spelling`.
CaseOutcome RunOn(const core::Kernel& plugin, const std::string& provider, const std::string& text,
                  uint64_t seed, const TeplugDevice& device, const std::string& spelling) {
  absl::StatusOr<DeviceCase> c = Parse(text);
  if (!c.ok()) return {false, std::string(c.status().message())};
  absl::StatusOr<core::Selection> s = SelectFor(plugin, provider, device);
  if (!s.ok())
    return {false, absl::StrCat("the plugin does not serve ", spelling, ": ",
                                KernelMessageHead(s.status().message()))};
  TeplugDeviceV1* dev = s->as<TeplugDeviceV1>();
  std::vector<TeplugDeviceInfo> devices;
  CaseOutcome o;
  if (std::string e = Enumerate(dev, &devices); !e.empty()) return {false, e};
  std::string problem;
  if (c->check == "memory") {
    OpenedDevice d(dev);
    problem = d.Open(device);
    TeplugStream stream = nullptr;
    if (problem.empty() && c->stream) problem = d.CreateStream(&stream);
    if (problem.empty()) problem = RoundTrip(&d, static_cast<size_t>(c->bytes), stream, seed);
    if (problem.empty()) problem = d.Close();
  } else if (c->check == "streams") {
    problem = CheckRefcountAround(reinterpret_cast<TeplugObject*>(dev), [&] {
      OpenedDevice d(dev);
      if (std::string e = d.Open(device); !e.empty()) return e;
      for (int i = 0; i < 4; ++i) {
        TeplugStream stream = nullptr;
        if (std::string e = d.CreateStream(&stream); !e.empty()) return e;
        if (std::string e = RoundTrip(&d, static_cast<size_t>(c->bytes), stream, seed + i);
            !e.empty())
          return e;
        if (std::string e = d.Synchronize(stream); !e.empty()) return e;
      }
      return d.Close();
    });
  } else if (c->check == "refusals") {
    size_t of_kind = 0;
    for (const TeplugDeviceInfo& i : devices) of_kind += i.kind == device.kind;
    problem = Refusals(dev, device, of_kind);
  }
  if (!problem.empty()) return {false, problem};  // plugin text in it is escaped
  o.passed = true;
  return o;
}

// The checks on `where`'s device, or on cpu:0 (host memory) without one.
CaseOutcome RunChecks(const core::Kernel& plugin, const std::string& provider, const core::Kernel&,
                      const std::string& text, uint64_t seed, const CaseDevice* where) {
  return where == nullptr ? RunOn(plugin, provider, text, seed, Cpu(0), "cpu:0")
                          : RunOn(plugin, provider, text, seed, where->device, where->spelling);
}

}  // namespace

const InterfaceConformance& DeviceConformance() {
  static const InterfaceConformance kDevice = [] {
    InterfaceConformance d = {"device",
                              &AllClaims,
                              &Checkable,
                              &Plan,
                              &ParseCase,
                              &RunOnHost<&RunChecks>,
                              &SelectOnHost<&Select>,
                              nullptr,
                              nullptr,
                              &AllClaims};
    d.run_on_device = &RunOnDevice<&RunChecks>;
    d.select_on_device = &SelectOnDevice<&Select>;
    return d;
  }();
  return kDevice;
}

}  // namespace teplug::cli
