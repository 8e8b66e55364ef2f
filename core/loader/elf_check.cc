#include "core/loader/elf_check.h"

#include <elf.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace teplug::core {
namespace {

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
constexpr absl::string_view kHostMachineName = "EM_X86_64";
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
constexpr absl::string_view kHostMachineName = "EM_AARCH64";
#elif defined(__powerpc64__)
constexpr uint16_t kHostMachine = EM_PPC64;
constexpr absl::string_view kHostMachineName = "EM_PPC64";
#elif defined(__riscv)
constexpr uint16_t kHostMachine = EM_RISCV;
constexpr absl::string_view kHostMachineName = "EM_RISCV";
#elif defined(__i386__)
constexpr uint16_t kHostMachine = EM_386;
constexpr absl::string_view kHostMachineName = "EM_386";
#else
#error "elf_check.cc: add this architecture's e_machine"
#endif

constexpr unsigned char kHostClass = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
constexpr unsigned char kHostData = ELFDATA2MSB;
#else
constexpr unsigned char kHostData = ELFDATA2LSB;
#endif

using Ehdr = ElfW(Ehdr);
using Phdr = ElfW(Phdr);
using Shdr = ElfW(Shdr);

absl::Status Malformed(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(kMalformedElf, what));
}

const char* ClassName(unsigned char c) {
  switch (c) {
    case ELFCLASS32: return "ELFCLASS32";
    case ELFCLASS64: return "ELFCLASS64";
    default: return "an unknown class";
  }
}

const char* DataName(unsigned char d) {
  switch (d) {
    case ELFDATA2LSB: return "ELFDATA2LSB (little-endian)";
    case ELFDATA2MSB: return "ELFDATA2MSB (big-endian)";
    default: return "an unknown encoding";
  }
}

const char* TypeName(uint16_t t) {
  switch (t) {
    case ET_NONE: return "ET_NONE";
    case ET_REL: return "ET_REL (an object file)";
    case ET_EXEC: return "ET_EXEC (an executable)";
    case ET_DYN: return "ET_DYN";
    case ET_CORE: return "ET_CORE (a core dump)";
    default: return "unknown";
  }
}

std::string SegmentName(uint32_t type) {
  switch (type) {
    case PT_LOAD: return "PT_LOAD";
    case PT_DYNAMIC: return "PT_DYNAMIC";
    case PT_INTERP: return "PT_INTERP";
    case PT_NOTE: return "PT_NOTE";
    case PT_PHDR: return "PT_PHDR";
    case PT_TLS: return "PT_TLS";
    case PT_GNU_EH_FRAME: return "PT_GNU_EH_FRAME";
    case PT_GNU_RELRO: return "PT_GNU_RELRO";
    case PT_GNU_PROPERTY: return "PT_GNU_PROPERTY";
    default: return absl::StrFormat("type 0x%x", type);
  }
}

// Whether [offset, offset + size) lies inside a file of `file_size` bytes,
// without computing a sum that could wrap.
bool InsideFile(uint64_t offset, uint64_t size, uint64_t file_size) {
  return offset <= file_size && size <= file_size - offset;
}

// "[offset, offset + size)", or "[offset, offset + size overflows)" when the
// end does not fit in 64 bits.
std::string Range(uint64_t offset, uint64_t size) {
  if (size > UINT64_MAX - offset) return absl::StrFormat("[%u, %u + %u overflows)", offset, offset, size);
  return absl::StrFormat("[%u, %u)", offset, offset + size);
}

std::string PastEnd(absl::string_view what, uint64_t offset, uint64_t size, uint64_t file_size) {
  return absl::StrCat(what, " at file bytes ", Range(offset, size), " extends past the end of the file (",
                      file_size, " bytes)");
}

absl::Status CheckIdent(uint64_t file_size, const ElfReadAt& read_at, unsigned char (&ident)[EI_NIDENT]) {
  if (file_size == 0) return Malformed("the file is empty");
  if (file_size < SELFMAG) {
    return Malformed(absl::StrCat("the file is ", file_size, " bytes, too short for the ELF magic"));
  }
  if (absl::Status read = read_at(0, SELFMAG, ident); !read.ok()) return read;
  if (std::memcmp(ident, ELFMAG, SELFMAG) != 0) {
    return Malformed(absl::StrFormat("not an ELF file (the first bytes are %02x %02x %02x %02x, not 7f 45 4c 46)",
                                     ident[0], ident[1], ident[2], ident[3]));
  }
  if (file_size < EI_NIDENT) {
    return Malformed(absl::StrCat("the file is ", file_size, " bytes, shorter than the ", EI_NIDENT,
                                  "-byte ELF identification"));
  }
  if (absl::Status read = read_at(0, EI_NIDENT, ident); !read.ok()) return read;
  if (ident[EI_CLASS] != kHostClass) {
    return Malformed(absl::StrCat("EI_CLASS is ", ident[EI_CLASS], " (", ClassName(ident[EI_CLASS]),
                                  "), this host loads ", ClassName(kHostClass)));
  }
  if (ident[EI_DATA] != kHostData) {
    return Malformed(absl::StrCat("EI_DATA is ", ident[EI_DATA], " (", DataName(ident[EI_DATA]),
                                  "), this host loads ", DataName(kHostData)));
  }
  if (ident[EI_VERSION] != EV_CURRENT) {
    return Malformed(absl::StrCat("EI_VERSION is ", ident[EI_VERSION], ", not EV_CURRENT (1)"));
  }
  return absl::OkStatus();
}

absl::Status CheckHeader(uint64_t file_size, const Ehdr& h) {
  if (h.e_type != ET_DYN) {
    return Malformed(absl::StrCat("e_type is ", h.e_type, " (", TypeName(h.e_type),
                                  "), not ET_DYN (a shared library)"));
  }
  if (h.e_machine != kHostMachine) {
    return Malformed(absl::StrCat("e_machine is ", h.e_machine, ", this host is ", kHostMachine, " (",
                                  kHostMachineName, ")"));
  }
  if (h.e_ehsize != sizeof(Ehdr)) {
    return Malformed(absl::StrCat("e_ehsize is ", h.e_ehsize, ", not ", sizeof(Ehdr)));
  }
  if (h.e_phentsize != sizeof(Phdr)) {
    return Malformed(absl::StrCat("e_phentsize is ", h.e_phentsize, ", not ", sizeof(Phdr)));
  }
  if (h.e_phnum == 0) return Malformed("no program headers (e_phnum is 0)");
  const uint64_t ph_size = uint64_t{h.e_phnum} * sizeof(Phdr);
  if (!InsideFile(h.e_phoff, ph_size, file_size)) {
    return Malformed(PastEnd(absl::StrCat("the program header table (", h.e_phnum, " entries)"), h.e_phoff,
                             ph_size, file_size));
  }
  // No section header table is e_shoff 0; e_shnum 0 with e_shoff set means
  // the count is in the first entry, which then must exist.
  if (h.e_shoff != 0) {
    if (h.e_shentsize != sizeof(Shdr)) {
      return Malformed(absl::StrCat("e_shentsize is ", h.e_shentsize, ", not ", sizeof(Shdr)));
    }
    const uint64_t entries = h.e_shnum != 0 ? h.e_shnum : 1;
    const uint64_t sh_size = entries * sizeof(Shdr);
    if (!InsideFile(h.e_shoff, sh_size, file_size)) {
      return Malformed(PastEnd(absl::StrCat("the section header table (", entries, " entries)"), h.e_shoff,
                               sh_size, file_size));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckElfImage(uint64_t file_size, const ElfReadAt& read_at) {
  unsigned char ident[EI_NIDENT];
  if (absl::Status s = CheckIdent(file_size, read_at, ident); !s.ok()) return s;
  if (file_size < sizeof(Ehdr)) {
    return Malformed(absl::StrCat("the file is ", file_size, " bytes, shorter than the ", sizeof(Ehdr),
                                  "-byte ELF header"));
  }
  Ehdr header;
  if (absl::Status read = read_at(0, sizeof(header), &header); !read.ok()) return read;
  if (absl::Status s = CheckHeader(file_size, header); !s.ok()) return s;

  std::vector<Phdr> segments(header.e_phnum);
  if (absl::Status read = read_at(header.e_phoff, segments.size() * sizeof(Phdr), segments.data()); !read.ok()) {
    return read;
  }
  for (size_t i = 0; i < segments.size(); ++i) {
    const Phdr& p = segments[i];
    if (p.p_filesz == 0) continue;
    if (!InsideFile(p.p_offset, p.p_filesz, file_size)) {
      return Malformed(PastEnd(absl::StrCat("segment ", i, " (", SegmentName(p.p_type), ")"), p.p_offset,
                               p.p_filesz, file_size));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckElfBytes(absl::string_view file) {
  return CheckElfImage(file.size(), [file](uint64_t offset, size_t size, void* out) {
    if (offset > file.size() || size > file.size() - offset) {
      return absl::OutOfRangeError(absl::StrCat("read of ", Range(offset, size), " outside the ",
                                                file.size(), " bytes given"));
    }
    std::memcpy(out, file.data() + offset, size);
    return absl::OkStatus();
  });
}

absl::Status CheckElfFile(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    return absl::FailedPreconditionError(absl::StrCat("cannot stat the file: ", std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) return absl::FailedPreconditionError("not a regular file");
  return CheckElfImage(static_cast<uint64_t>(st.st_size), [fd](uint64_t offset, size_t size, void* out) {
    char* to = static_cast<char*>(out);
    while (size > 0) {
      const ssize_t n = ::pread(fd, to, size, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        return absl::FailedPreconditionError(absl::StrCat(
            "cannot read ", size, " bytes at offset ", offset, " of the file: ",
            n < 0 ? std::strerror(errno) : "it ended early (it shrank while being checked)"));
      }
      to += n;
      offset += static_cast<uint64_t>(n);
      size -= static_cast<size_t>(n);
    }
    return absl::OkStatus();
  });
}

}  // namespace teplug::core
