#include "tools/teplug/file_rendezvous.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "teplug/sdk/struct_io.hpp"

namespace teplug::cli {
namespace {

// File names inside the directory: keys start with "k.", arrivals with
// "arrived.", temporaries with ".tmp."; the two notes have fixed names.
constexpr char kAbortNote[] = "aborted";
constexpr char kFinishedNote[] = "finished";
// Longest encoded key: file names are limited to 255 bytes.
constexpr size_t kMaxFileName = 240;

std::string ArrivalName(int rank) { return absl::StrCat("arrived.", rank); }

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// Reads the whole file; false when it does not exist.
bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *out = s.str();
  return true;
}

absl::Status ErrnoStatus(const std::string& what, const std::string& path) {
  const int err = errno;
  return absl::UnavailableError(absl::StrCat(what, " ", path, ": ", std::strerror(err)));
}

// mkdir -p.
absl::Status MakeDirectories(const std::string& directory) {
  std::string partial;
  for (size_t i = 0; i <= directory.size(); ++i) {
    if (i == directory.size() || (directory[i] == '/' && i > 0)) {
      partial = directory.substr(0, i);
      if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) {
        return ErrnoStatus("rendezvous: cannot create directory", partial);
      }
    }
  }
  struct stat st;
  if (::stat(directory.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("rendezvous: ", directory, " is not a directory"));
  }
  return absl::OkStatus();
}

// Writes `value` to `path` in `directory` atomically: a temporary file, then
// rename over `path`.
absl::Status WriteAtomically(const std::string& directory, const std::string& path,
                             absl::string_view value) {
  static std::atomic<uint64_t> counter{0};  // unique temporary names within this process
  char host[64] = {0};
  ::gethostname(host, sizeof(host) - 1);  // the directory may be shared by hosts
  const std::string temp =
      absl::StrFormat("%s/.tmp.%s.%d.%d", directory, host, static_cast<int>(::getpid()),
                      counter.fetch_add(1));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoStatus("rendezvous: cannot create", temp);
  size_t written = 0;
  while (written < value.size()) {
    const ssize_t n = ::write(fd, value.data() + written, value.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      absl::Status s = ErrnoStatus("rendezvous: cannot write", temp);
      ::close(fd);
      ::unlink(temp.c_str());
      return s;
    }
    written += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    absl::Status s = ErrnoStatus("rendezvous: cannot write", temp);
    ::unlink(temp.c_str());
    return s;
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    absl::Status s = ErrnoStatus("rendezvous: cannot rename into", path);
    ::unlink(temp.c_str());
    return s;
  }
  return absl::OkStatus();
}

}  // namespace

std::string EncodeKeyAsFileName(absl::string_view key) {
  std::string name = "k.";
  for (unsigned char c : key) {
    if (std::isalnum(c) || c == '_' || c == '-') {
      name.push_back(static_cast<char>(c));
    } else {
      absl::StrAppendFormat(&name, "%%%02X", c);
    }
  }
  return name;
}

FileRendezvous::FileRendezvous(std::string directory, int rank, int world_size)
    : directory_(std::move(directory)), rank_(rank), world_size_(world_size) {
  kv_ = sdk::Versioned<TeplugKvStore>();
  kv_.ctx = this;
  kv_.put = &FileRendezvous::KvPut;
  kv_.get = &FileRendezvous::KvGet;
}

absl::StatusOr<std::unique_ptr<FileRendezvous>> FileRendezvous::Open(const std::string& directory,
                                                                     int rank, int world_size) {
  if (directory.empty()) {
    return absl::InvalidArgumentError("rendezvous: the directory is empty (file:DIR)");
  }
  if (world_size < 1 || rank < 0 || rank >= world_size) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "rendezvous %s: rank %d is not in 0..%d", directory, rank, world_size - 1));
  }
  if (absl::Status s = MakeDirectories(directory); !s.ok()) return s;
  std::unique_ptr<FileRendezvous> store(new FileRendezvous(directory, rank, world_size));
  if (FileExists(directory + "/" + kFinishedNote)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "rendezvous ", directory,
        " holds a finished run (its keys would be read as this run's); give each run a new "
        "directory, or remove this one"));
  }
  if (absl::Status s = WriteAtomically(directory, directory + "/" + ArrivalName(rank), "1"); !s.ok()) {
    return s;
  }
  return store;
}

std::string FileRendezvous::KeyPath(absl::string_view key) const {
  return absl::StrCat(directory_, "/", EncodeKeyAsFileName(key));
}

absl::Status FileRendezvous::Set(absl::string_view key, absl::string_view value) {
  const std::string name = EncodeKeyAsFileName(key);
  if (name.size() > kMaxFileName) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "rendezvous %s: key \"%s\" is too long (%d bytes encoded, at most %d)", directory_,
        absl::CHexEscape(key), name.size(), kMaxFileName));
  }
  return WriteAtomically(directory_, absl::StrCat(directory_, "/", name), value);
}

bool FileRendezvous::Has(absl::string_view key) const { return FileExists(KeyPath(key)); }

bool FileRendezvous::ReadAbortNote(std::string* note) const {
  return ReadFile(absl::StrCat(directory_, "/", kAbortNote), note);
}

absl::StatusOr<std::string> FileRendezvous::Get(absl::string_view key, int64_t timeout_ms) {
  const std::string path = KeyPath(key);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  // Polls fast at first (ranks usually arrive close together), then backs off
  // to 20 ms so a long wait costs little.
  auto pause = std::chrono::microseconds(100);
  while (true) {
    std::string value;
    if (ReadFile(path, &value)) return value;
    std::string note;
    if (ReadAbortNote(&note)) {
      return absl::AbortedError(absl::StrFormat(
          "rendezvous %s: stopped waiting for key \"%s\": %s", directory_, absl::CHexEscape(key),
          note));
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) break;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
  const std::vector<int> missing = MissingRanks();
  return absl::DeadlineExceededError(absl::StrFormat(
      "rendezvous %s: key \"%s\" did not appear within %d ms; %s", directory_,
      absl::CHexEscape(key), timeout_ms,
      missing.empty()
          ? absl::StrFormat("every rank of %d arrived, so a rank that did is late or stopped",
                            world_size_)
          : absl::StrFormat("rank%s %s of %d never arrived", missing.size() == 1 ? "" : "s",
                            absl::StrJoin(missing, ", "), world_size_)));
}

std::vector<int> FileRendezvous::MissingRanks() const {
  std::vector<int> missing;
  for (int r = 0; r < world_size_; ++r) {
    if (!FileExists(absl::StrCat(directory_, "/", ArrivalName(r)))) missing.push_back(r);
  }
  return missing;
}

void FileRendezvous::Abort(absl::string_view note) { PostAbortNote(directory_, note); }

void PostAbortNote(const std::string& directory, absl::string_view note) {
  // Best effort: the caller is already reporting the failure itself. The
  // first note stays: later ones usually only echo it.
  if (FileExists(absl::StrCat(directory, "/", kAbortNote))) return;
  (void)WriteAtomically(directory, absl::StrCat(directory, "/", kAbortNote), note);
}

absl::Status FileRendezvous::MarkFinished() {
  return WriteAtomically(directory_, absl::StrCat(directory_, "/", kFinishedNote), "1");
}

TeplugError* FileRendezvous::KvPut(void* ctx, const char* key, const void* value, size_t size) {
  if (key == nullptr || (value == nullptr && size > 0)) {
    return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "kv put: key or value is NULL");
  }
  absl::Status s = static_cast<FileRendezvous*>(ctx)->Set(
      key, absl::string_view(static_cast<const char*>(value), size));
  if (s.ok()) return nullptr;
  return teplug_error_create(
      s.code() == absl::StatusCode::kInvalidArgument ? TEPLUG_INVALID_ARGUMENT : TEPLUG_INTERNAL,
      std::string(s.message()).c_str());
}

TeplugError* FileRendezvous::KvGet(void* ctx, const char* key, void* buffer, size_t capacity,
                                   size_t* size, int64_t timeout_ms) {
  if (key == nullptr || size == nullptr || (buffer == nullptr && capacity > 0)) {
    return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "kv get: NULL argument");
  }
  absl::StatusOr<std::string> v = static_cast<FileRendezvous*>(ctx)->Get(key, timeout_ms);
  if (!v.ok()) {
    // A posted abort note is not a timeout: callers that retry on timeouts
    // must stop.
    return teplug_error_create(v.status().code() == absl::StatusCode::kAborted
                                   ? TEPLUG_UNAVAILABLE
                                   : TEPLUG_DEADLINE_EXCEEDED,
                               std::string(v.status().message()).c_str());
  }
  *size = v->size();
  if (v->size() > capacity) {
    return teplug_error_create(TEPLUG_INVALID_ARGUMENT, "kv get: buffer too small");
  }
  if (!v->empty()) std::memcpy(buffer, v->data(), v->size());
  return nullptr;
}

}  // namespace teplug::cli
