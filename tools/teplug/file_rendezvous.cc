#include "tools/teplug/file_rendezvous.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

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
    : Rendezvous(rank, world_size),
      directory_(std::move(directory)),
      where_("file:" + directory_) {}

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

absl::StatusOr<std::optional<std::string>> FileRendezvous::TryGet(absl::string_view key) const {
  std::string value;
  if (ReadFile(KeyPath(key), &value)) return value;
  return std::nullopt;
}

absl::StatusOr<std::optional<std::string>> FileRendezvous::AbortNote() const {
  std::string note;
  if (ReadFile(absl::StrCat(directory_, "/", kAbortNote), &note)) return note;
  return std::nullopt;
}

std::vector<int> FileRendezvous::MissingRanks() const {
  std::vector<int> missing;
  for (int r = 0; r < world_size(); ++r) {
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

}  // namespace teplug::cli
