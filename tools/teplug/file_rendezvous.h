// The rendezvous (rendezvous.h) in a directory every rank can see (one
// machine's /tmp, or a shared file system such as NFS for ranks on several
// hosts).
//
// Set writes the value to a temporary file and renames it over the key's file
// (rename is atomic, so a reader sees the whole value or nothing); Get polls
// for the file until a deadline. Each rank marks its arrival when it opens
// the store; a failing rank's abort note and the finished mark are files.
// Opening a finished directory is refused.
#ifndef TEPLUG_TOOLS_TEPLUG_FILE_RENDEZVOUS_H_
#define TEPLUG_TOOLS_TEPLUG_FILE_RENDEZVOUS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/teplug/rendezvous.h"

namespace teplug::cli {

class FileRendezvous : public Rendezvous {
 public:
  // Opens (creating it and its parents if needed) `directory` as rank `rank`
  // of `world_size` and marks this rank's arrival. Fails when the directory
  // cannot be made or written, or holds a finished run.
  static absl::StatusOr<std::unique_ptr<FileRendezvous>> Open(const std::string& directory,
                                                              int rank, int world_size);

  // Any key (the file name encodes it).
  absl::Status Set(absl::string_view key, absl::string_view value) override;
  std::vector<int> MissingRanks() const override;
  void Abort(absl::string_view note) override;
  absl::Status MarkFinished() override;
  const std::string& where() const override { return where_; }

  // Whether `key` is there now.
  bool Has(absl::string_view key) const;
  const std::string& directory() const { return directory_; }

 private:
  FileRendezvous(std::string directory, int rank, int world_size);
  absl::StatusOr<std::optional<std::string>> TryGet(absl::string_view key) const override;
  absl::StatusOr<std::optional<std::string>> AbortNote() const override;
  std::string KeyPath(absl::string_view key) const;

  const std::string directory_;
  const std::string where_;  // "file:" + directory_
};

// Posts `note` into the rendezvous `directory` as Abort does, for a process
// that is not one of its ranks (the launcher, when a rank dies).
void PostAbortNote(const std::string& directory, absl::string_view note);

// The file name a key is stored under: "k." then the key with every byte
// outside [A-Za-z0-9_-] written as %XX, so any key is one safe file name.
std::string EncodeKeyAsFileName(absl::string_view key);

}  // namespace teplug::cli

#endif  // TEPLUG_TOOLS_TEPLUG_FILE_RENDEZVOUS_H_
