// A collective plugin (plain C ABI) whose all_reduce ignores one rank: it
// declares all_reduce of fp32 with sum, and every rank receives the sum of
// all ranks' inputs but the last rank's. Its ranks meet in a table of this
// process keyed by the rendezvous's kv_prefix, so it serves only ranks that
// are threads of one process (as `teplug conformance` runs them).
// `teplug conformance` must fail it on ops=all_reduce with a reproducing
// command. Built with HONEST it sums every rank (and must pass); built with
// ON_OPAQUE_DEVICE it serves the opencl:0 device of opaque_device.h instead
// of the CPU (its buffers' data are that device's handles) and registers
// that IDevice too.
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "teplug/teplug.h"
#include "tools/teplug/conformance_plugins/plugin_parts.h"
#ifdef ON_OPAQUE_DEVICE
#include "tools/teplug/conformance_plugins/opaque_device.h"
#endif

namespace {

using conformance_plugins::AddRef;
using conformance_plugins::Error;
using conformance_plugins::Release;

const TeplugIID kCollectiveIid = TEPLUG_IID_COLLECTIVE_V1_INIT;

// What the ranks of one communicator share: each rank's input of the
// current all_reduce, and how many ranks have deposited / left it.
struct Meeting {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::vector<float>> inputs;
  int deposited = 0, left = 0;
};

std::mutex g_table_mu;
std::map<std::string, std::shared_ptr<Meeting>> g_table;

}  // namespace

struct TeplugCommunicator {
  int rank = 0, world = 0;
  std::shared_ptr<Meeting> meeting;
};

namespace {

TeplugError* CommCreate(TeplugCollectiveV1*, const TeplugCommCreateArgs* a,
                        TeplugCommunicator** out) {
  if (a == nullptr || out == nullptr || a->rendezvous == nullptr || a->world_size < 1 ||
      a->rank < 0 || a->rank >= a->world_size)
    return Error(TEPLUG_INVALID_ARGUMENT, "comm_create: rank, world_size and rendezvous needed");
  const std::string key = a->rendezvous->kv_prefix != nullptr ? a->rendezvous->kv_prefix : "";
  auto* comm = new TeplugCommunicator{a->rank, a->world_size, nullptr};
  std::lock_guard<std::mutex> lock(g_table_mu);
  std::shared_ptr<Meeting>& m = g_table[key];
  if (m == nullptr) {
    m = std::make_shared<Meeting>();
    m->inputs.resize(static_cast<size_t>(a->world_size));
  }
  comm->meeting = m;
  *out = comm;
  return nullptr;
}

TeplugError* CommDestroy(TeplugCollectiveV1*, TeplugCommunicator* comm) {
  delete comm;
  return nullptr;
}

// The host address of a buffer's data.
template <typename T>
T* Data(const TeplugTensor* t) {
#ifdef ON_OPAQUE_DEVICE
  return static_cast<T*>(opaque_device::Host(t->data));
#else
  return static_cast<T*>(t->data);
#endif
}

int64_t Count(const TeplugTensor* t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; ++i) n *= t->shape[i];
  return n;
}

TeplugError* Run(TeplugCollectiveV1*, int32_t op, const TeplugCollectiveArgs* a) {
  if (op != TEPLUG_OP_ALL_REDUCE) return Error(TEPLUG_UNSUPPORTED, "only all_reduce");
  if (a == nullptr || a->comm == nullptr || a->send == nullptr || a->recv == nullptr)
    return Error(TEPLUG_INVALID_ARGUMENT, "all_reduce: comm, send and recv are required");
  if (a->send->dtype != TEPLUG_DTYPE_FP32 || a->reduce_op != TEPLUG_REDUCE_SUM)
    return Error(TEPLUG_UNSUPPORTED, "only an fp32 sum");
  TeplugCommunicator* c = a->comm;
  Meeting& m = *c->meeting;
  const int64_t n = Count(a->send);
  const auto* in = Data<const float>(a->send);
  std::unique_lock<std::mutex> lock(m.mu);
  m.inputs[c->rank].assign(in, in + n);
  ++m.deposited;
  m.cv.notify_all();
  m.cv.wait(lock, [&] { return m.deposited == c->world; });
  auto* out = Data<float>(a->recv);
  for (int64_t i = 0; i < n; ++i) {
    float sum = 0;
#ifdef HONEST
    for (int r = 0; r < c->world; ++r) sum += m.inputs[r][i];
#else
    for (int r = 0; r + 1 < c->world; ++r)
      sum += m.inputs[r][i];  // the lie: the last rank is left out
#endif
    out[i] = sum;
  }
  if (++m.left == c->world) m.deposited = m.left = 0;  // ready for the next all_reduce
  return nullptr;
}

TeplugError* Group(TeplugCollectiveV1*, TeplugCommunicator*) {
  return Error(TEPLUG_UNSUPPORTED, "no groups");
}

TeplugBool Supports(TeplugObject*, int32_t op, const void*, char* reason, size_t reason_size) {
  return conformance_plugins::AnswerSupports(
      op == TEPLUG_OP_ALL_REDUCE ? nullptr : "only all_reduce", reason, reason_size);
}

const TeplugCollectiveV1Vtbl kVtbl = {
    {sizeof(TeplugCollectiveV1Vtbl), &conformance_plugins::QueryOne<&kCollectiveIid>, &AddRef,
     &Release},
    &Supports,
    &CommCreate,
    &CommDestroy,
    &Run,
    &Group,
    &Group};
TeplugCollectiveV1 g_collective = {&kVtbl};

#ifdef ON_OPAQUE_DEVICE
const TeplugDeviceSupport* const kServed = opaque_device::kOpencl;
#else
const TeplugDeviceSupport kServed[] = {
    {sizeof(TeplugDeviceSupport), TEPLUG_DEVICE_CPU, TEPLUG_VENDOR_ANY, 0, 0}};
#endif
const TeplugCollectiveCaps kCaps = {sizeof(TeplugCollectiveCaps),
                                    kServed,
                                    1,
                                    TEPLUG_DTYPE_BIT(TEPLUG_DTYPE_FP32),
                                    TEPLUG_OP_BIT(TEPLUG_OP_ALL_REDUCE),
                                    TEPLUG_REDUCE_BIT(TEPLUG_REDUCE_SUM),
                                    0};

}  // namespace

extern "C" TEPLUG_PLUGIN_EXPORT TeplugError* teplug_plugin_entry(const TeplugHostApi* host,
                                                                 TeplugPluginInfo* info) {
#ifndef PLUGIN_PROVIDER_NAME
#define PLUGIN_PROVIDER_NAME "conformance_collective_ignores_rank"
#endif
#ifdef HONEST
  const char* name = "all_ranks";
#else
  const char* name = "ignores_last_rank";
#endif
#ifdef ON_OPAQUE_DEVICE
  if (TeplugError* e = conformance_plugins::RegisterOne(
          host, info, PLUGIN_PROVIDER_NAME, opaque_device::kDeviceIid,
          reinterpret_cast<TeplugObject*>(&opaque_device::g_opaque_device),
          &opaque_device::kOpaqueDeviceCaps, "opaque_device"))
    return e;
  return conformance_plugins::RegisterImplementation(
      host, kCollectiveIid, reinterpret_cast<TeplugObject*>(&g_collective), &kCaps, name);
#else
  return conformance_plugins::RegisterOne(host, info, PLUGIN_PROVIDER_NAME, kCollectiveIid,
                                          reinterpret_cast<TeplugObject*>(&g_collective), &kCaps,
                                          name);
#endif
}
