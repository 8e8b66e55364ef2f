#include "native/collective/rendezvous_store.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "teplug/sdk/error.hpp"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::native::collective {
namespace {

class KvRendezvousStore final : public RendezvousStore {
 public:
  KvRendezvousStore(const TeplugKvStore& kv, std::string prefix)
      : kv_(kv), prefix_(std::move(prefix)) {}

  void Put(const std::string& key, const std::string& value) override {
    const std::string full = Where(key);
    sdk::OwnedError e(kv_.put(kv_.ctx, full.c_str(), value.data(), value.size()));
    if (!e.ok()) {
      throw sdk::Exception(e.code(), absl::StrCat("TeplugKvStore.put(\"", full, "\"): ", e.message()));
    }
  }

  std::optional<std::string> Get(const std::string& key,
                                 std::chrono::milliseconds timeout) override {
    const std::string full = Where(key);
    std::vector<char> buffer(256);
    for (int attempt = 0; attempt < 2; ++attempt) {
      size_t size = 0;
      sdk::OwnedError e(
          kv_.get(kv_.ctx, full.c_str(), buffer.data(), buffer.size(), &size, timeout.count()));
      if (e.ok()) {
        if (size > buffer.size()) {
          throw sdk::Internal(absl::StrCat("TeplugKvStore.get(\"", full, "\") reported ", size,
                                           " bytes, more than the ", buffer.size(),
                                           " it was given"));
        }
        return std::string(buffer.data(), size);
      }
      if (e.code() == TEPLUG_DEADLINE_EXCEEDED) return std::nullopt;
      // The contract: a value larger than capacity reports its size; retry once.
      if (e.code() == TEPLUG_INVALID_ARGUMENT && size > buffer.size() && attempt == 0) {
        buffer.resize(size);
        continue;
      }
      throw sdk::Exception(e.code(), absl::StrCat("TeplugKvStore.get(\"", full, "\"): ", e.message()));
    }
    throw sdk::Internal(absl::StrCat("TeplugKvStore.get(\"", full, "\"): value size changed"));
  }

  std::string Where(const std::string& key) const override {
    return absl::StrCat(prefix_, "/nccl/", key);
  }
  std::string Describe() const override {
    return absl::StrCat("key-value store, prefix \"", prefix_, "\"");
  }

 private:
  TeplugKvStore kv_;
  std::string prefix_;
};

class FileRendezvousStore final : public RendezvousStore {
 public:
  explicit FileRendezvousStore(std::string directory) : directory_(std::move(directory)) {}

  void Put(const std::string& key, const std::string& value) override {
    static std::atomic<uint64_t> serial{0};
    const std::string path = Where(key);
    const std::string temporary =
        absl::StrCat(directory_, "/.nccl-", key, ".", getpid(), ".", serial.fetch_add(1));
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out.write(value.data(), static_cast<std::streamsize>(value.size()));
      out.close();
      if (!out) {
        throw sdk::Unavailable(absl::StrCat("rendezvous file ", temporary, ": cannot write: ",
                                            std::strerror(errno)));
      }
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      std::remove(temporary.c_str());
      throw sdk::Unavailable(absl::StrCat("rendezvous file ", path, ": cannot rename ", temporary,
                                          " into place: ", why));
    }
  }

  std::optional<std::string> Get(const std::string& key,
                                 std::chrono::milliseconds timeout) override {
    const std::string path = Where(key);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      std::ifstream in(path, std::ios::binary);
      if (in) {
        std::ostringstream content;
        content << in.rdbuf();
        return content.str();
      }
      if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  std::string Where(const std::string& key) const override {
    return absl::StrCat(directory_, "/nccl-", key);
  }
  std::string Describe() const override { return "file store " + directory_; }

 private:
  std::string directory_;
};

}  // namespace

std::unique_ptr<RendezvousStore> OpenRendezvousStore(const TeplugRendezvous& rv,
                                                     const std::string& field) {
  const bool has_blob = rv.bootstrap != nullptr && rv.bootstrap_size > 0;
  if (has_blob == (rv.kv != nullptr)) {
    throw sdk::InvalidArgument(absl::StrCat(
        field, ": exactly one of bootstrap (with bootstrap_size > 0) or kv must be set; ",
        has_blob ? "both are" : "neither is"));
  }
  if (has_blob) {
    const std::string blob(static_cast<const char*>(rv.bootstrap), rv.bootstrap_size);
    const std::string prefix = kFileBlobPrefix;
    if (blob.compare(0, prefix.size(), prefix) != 0 || blob.size() == prefix.size()) {
      throw sdk::InvalidArgument(absl::StrCat(field, ".bootstrap: an NCCL blob is \"", prefix,
                                              "<directory>\"; got ", blob.size(),
                                              " bytes not of that form"));
    }
    return std::make_unique<FileRendezvousStore>(blob.substr(prefix.size()));
  }
  TeplugKvStore kv;
  if (!sdk::ReadVersioned(rv.kv, &kv, TEPLUG_STRUCT_SIZE(TeplugKvStore, get)) ||
      kv.put == nullptr || kv.get == nullptr) {
    throw sdk::InvalidArgument(absl::StrCat(field, ".kv: struct too small or put/get NULL"));
  }
  return std::make_unique<KvRendezvousStore>(kv, rv.kv_prefix != nullptr ? rv.kv_prefix : "");
}

}  // namespace teplug::native::collective
