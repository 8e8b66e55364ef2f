// A key-value rendezvous in a directory every rank can see (one machine's
// /tmp, or a shared file system such as NFS for ranks on several hosts): the
// meeting point of `teplug run` ranks that are processes. Offered to
// ICollective as its TeplugKvStore and used by the tool for its own exchanges.
//
// Set writes the value to a temporary file and renames it over the key's file
// (rename is atomic, so a reader sees the whole value or nothing); Get polls
// for the file until a deadline. Each rank marks its arrival when it opens
// the store, so a timeout names the key and the ranks that never arrived.
// A failing rank posts an abort note; every later Get in any rank then fails
// at once with that note instead of waiting out its deadline.
//
// One directory serves one run: the first rank to finish marks it finished,
// and opening a finished directory is refused (stale keys of an earlier run
// would otherwise be read as this run's).
#ifndef TEPLUG_TOOLS_TEPLUG_FILE_RENDEZVOUS_H_
#define TEPLUG_TOOLS_TEPLUG_FILE_RENDEZVOUS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "teplug/collective.h"

namespace teplug::cli {

class FileRendezvous {
 public:
  // Opens (creating it and its parents if needed) `directory` as rank `rank`
  // of `world_size` and marks this rank's arrival. Fails when the directory
  // cannot be made or written, or holds a finished run.
  static absl::StatusOr<std::unique_ptr<FileRendezvous>> Open(const std::string& directory,
                                                              int rank, int world_size);

  // Publishes `value` under `key` (any bytes; the file name encodes the key).
  absl::Status Set(absl::string_view key, absl::string_view value);
  // Waits up to `timeout_ms` for `key`. DeadlineExceeded names the key, the
  // directory and the ranks that have not arrived (or says all have);
  // Aborted with the note when a rank posted one.
  absl::StatusOr<std::string> Get(absl::string_view key, int64_t timeout_ms);
  // Whether `key` is there now.
  bool Has(absl::string_view key) const;

  // Ranks whose arrival mark is not in the directory, in order.
  std::vector<int> MissingRanks() const;
  // Posts `note` (e.g. "rank 1: ...") so every waiting rank stops.
  void Abort(absl::string_view note);
  // Marks the run finished (see the file comment).
  absl::Status MarkFinished();

  // The store as ABI callbacks, valid while this object lives. get returns
  // TEPLUG_DEADLINE_EXCEEDED on timeout and TEPLUG_UNAVAILABLE (with the
  // note) after an abort.
  const TeplugKvStore* kv_store() const { return &kv_; }
  const std::string& directory() const { return directory_; }
  int rank() const { return rank_; }
  int world_size() const { return world_size_; }

 private:
  FileRendezvous(std::string directory, int rank, int world_size);
  std::string KeyPath(absl::string_view key) const;
  // The abort note, if a rank posted one.
  bool ReadAbortNote(std::string* note) const;

  static TeplugError* KvPut(void* ctx, const char* key, const void* value, size_t size);
  static TeplugError* KvGet(void* ctx, const char* key, void* buffer, size_t capacity, size_t* size,
                            int64_t timeout_ms);

  const std::string directory_;
  const int rank_;
  const int world_size_;
  TeplugKvStore kv_{};
};

// Posts `note` into the rendezvous `directory` as Abort does, for a process
// that is not one of its ranks (the launcher, when a rank dies).
void PostAbortNote(const std::string& directory, absl::string_view note);

// The file name a key is stored under: "k." then the key with every byte
// outside [A-Za-z0-9_-] written as %XX, so any key is one safe file name.
std::string EncodeKeyAsFileName(absl::string_view key);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_FILE_RENDEZVOUS_H_
