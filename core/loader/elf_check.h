// Checks a plugin file's ELF structure before dlopen maps it. dlopen trusts
// the headers: a file cut short (a half-copied library, a truncated
// download) makes the dynamic loader touch mapped pages past the end of the
// file, and the host dies of SIGBUS inside dlopen. These checks read only
// the headers and refuse such a file with a reason instead:
//   * identification: ELF magic, class and data encoding of this host,
//     EV_CURRENT;
//   * header: the whole ELF header is in the file, e_type ET_DYN (a shared
//     library), e_machine this host's, e_ehsize the size of this host's header;
//   * program header table: e_phentsize is this host's Phdr size, at least one
//     entry, the table inside the file;
//   * section header table (when present): e_shentsize this host's Shdr size,
//     the table inside the file;
//   * every segment's file range [p_offset, p_offset + p_filesz) inside the
//     file (PT_LOAD and PT_DYNAMIC among them).
// Every offset + size is computed without overflow (a sum that would wrap is
// reported as past the end of the file). Refusals read
//   "truncated or malformed ELF: <what exactly>"
// with the offsets and sizes involved.
#ifndef TEPLUG_CORE_LOADER_ELF_CHECK_H_
#define TEPLUG_CORE_LOADER_ELF_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace teplug::core {

// The prefix of every refusal for a malformed file.
inline constexpr absl::string_view kMalformedElf = "truncated or malformed ELF: ";

// Reads exactly `size` bytes at `offset` into `out`. The checker only asks
// for ranges it has already proven to lie inside the file.
using ElfReadAt = std::function<absl::Status(uint64_t offset, size_t size, void* out)>;

// Checks a file of `file_size` bytes read through `read_at`. OK when dlopen
// may map it; INVALID_ARGUMENT with kMalformedElf and the reason otherwise;
// a failed read's status unchanged.
absl::Status CheckElfImage(uint64_t file_size, const ElfReadAt& read_at);

// The same over bytes in memory (the whole file).
absl::Status CheckElfBytes(absl::string_view file);

// The same over an open file descriptor: its size from fstat, its bytes with
// pread (the offset of `fd` is not moved). Checking through the descriptor
// the caller opened means the size and headers checked are those of one file.
absl::Status CheckElfFile(int fd);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_ELF_CHECK_H_
