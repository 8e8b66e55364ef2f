// CheckElfBytes on synthetic images: a minimal valid shared-library header
// (ELF header, two program headers, a section header table) that each test
// breaks in one way, with the boundary cases of every range check (ending
// exactly at the end of the file passes, one byte more is refused).
#include "core/loader/elf_check.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace teplug::core {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using Ehdr = ElfW(Ehdr);
using Phdr = ElfW(Phdr);
using Shdr = ElfW(Shdr);

constexpr uint64_t kPhoff = sizeof(Ehdr);
constexpr uint64_t kShoff = kPhoff + 2 * sizeof(Phdr);
constexpr uint64_t kShnum = 3;
constexpr uint64_t kFileSize = kShoff + kShnum * sizeof(Shdr) + 256;

// A valid image: the header, a PT_LOAD of the whole file and a PT_DYNAMIC of
// its last 64 bytes, a section header table of three entries.
struct Image {
  std::string bytes = std::string(kFileSize, '\0');

  Image() {
    Ehdr h{};
    std::memcpy(h.e_ident, ELFMAG, SELFMAG);
    h.e_ident[EI_CLASS] = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;
    h.e_ident[EI_DATA] = ELFDATA2LSB;
    h.e_ident[EI_VERSION] = EV_CURRENT;
    h.e_type = ET_DYN;
#if defined(__x86_64__)
    h.e_machine = EM_X86_64;
#elif defined(__aarch64__)
    h.e_machine = EM_AARCH64;
#endif
    h.e_version = EV_CURRENT;
    h.e_ehsize = sizeof(Ehdr);
    h.e_phoff = kPhoff;
    h.e_phentsize = sizeof(Phdr);
    h.e_phnum = 2;
    h.e_shoff = kShoff;
    h.e_shentsize = sizeof(Shdr);
    h.e_shnum = kShnum;
    header() = h;
    Phdr load{};
    load.p_type = PT_LOAD;
    load.p_offset = 0;
    load.p_filesz = kFileSize;
    load.p_memsz = kFileSize;
    segment(0) = load;
    Phdr dynamic{};
    dynamic.p_type = PT_DYNAMIC;
    dynamic.p_offset = kFileSize - 64;
    dynamic.p_filesz = 64;
    dynamic.p_memsz = 64;
    segment(1) = dynamic;
  }
  Ehdr& header() { return *reinterpret_cast<Ehdr*>(bytes.data()); }
  Phdr& segment(int i) { return *reinterpret_cast<Phdr*>(bytes.data() + kPhoff + i * sizeof(Phdr)); }
  absl::Status Check() const { return CheckElfBytes(bytes); }
};

void ExpectMalformed(const absl::Status& status, const std::string& what) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), StartsWith("truncated or malformed ELF: "));
  EXPECT_THAT(std::string(status.message()), HasSubstr(what));
}

TEST(ElfCheckTest, ValidImagePasses) { EXPECT_TRUE(Image().Check().ok()) << Image().Check(); }

TEST(ElfCheckTest, EmptyFile) { ExpectMalformed(CheckElfBytes(""), "the file is empty"); }

TEST(ElfCheckTest, ShorterThanTheMagic) {
  ExpectMalformed(CheckElfBytes(std::string(ELFMAG, 3)), "the file is 3 bytes, too short for the ELF magic");
}

TEST(ElfCheckTest, NotElf) {
  ExpectMalformed(CheckElfBytes("#!/bin/sh\necho hi\n"),
                  "not an ELF file (the first bytes are 23 21 2f 62, not 7f 45 4c 46)");
}

TEST(ElfCheckTest, IdentificationCutShort) {
  const std::string full = Image().bytes;
  ExpectMalformed(CheckElfBytes(full.substr(0, EI_NIDENT - 1)),
                  "the file is 15 bytes, shorter than the 16-byte ELF identification");
  // The identification alone passes it and fails at the header.
  ExpectMalformed(CheckElfBytes(full.substr(0, EI_NIDENT)), "shorter than the");
}

TEST(ElfCheckTest, HeaderCutShortByOneByte) {
  const std::string full = Image().bytes;
  ExpectMalformed(CheckElfBytes(full.substr(0, sizeof(Ehdr) - 1)),
                  "the file is " + std::to_string(sizeof(Ehdr) - 1) + " bytes, shorter than the " +
                      std::to_string(sizeof(Ehdr)) + "-byte ELF header");
}

TEST(ElfCheckTest, WrongClass) {
  Image i;
  i.header().e_ident[EI_CLASS] = sizeof(void*) == 8 ? ELFCLASS32 : ELFCLASS64;
  ExpectMalformed(i.Check(), "EI_CLASS is");
  ExpectMalformed(i.Check(), "this host loads");
}

TEST(ElfCheckTest, WrongDataEncoding) {
  Image i;
  i.header().e_ident[EI_DATA] = ELFDATA2MSB;
  ExpectMalformed(i.Check(), "EI_DATA is 2 (ELFDATA2MSB (big-endian)), this host loads ELFDATA2LSB");
}

TEST(ElfCheckTest, WrongIdentVersion) {
  Image i;
  i.header().e_ident[EI_VERSION] = 2;
  ExpectMalformed(i.Check(), "EI_VERSION is 2, not EV_CURRENT (1)");
}

TEST(ElfCheckTest, NotASharedLibrary) {
  Image i;
  i.header().e_type = ET_EXEC;
  ExpectMalformed(i.Check(), "e_type is 2 (ET_EXEC (an executable)), not ET_DYN (a shared library)");
}

TEST(ElfCheckTest, WrongMachine) {
  Image i;
  i.header().e_machine = EM_SPARC;
  ExpectMalformed(i.Check(), "e_machine is 2, this host is");
}

TEST(ElfCheckTest, HeaderSizeMustBeExact) {
  for (int delta : {-1, 1}) {
    Image i;
    i.header().e_ehsize = static_cast<uint16_t>(sizeof(Ehdr) + delta);
    ExpectMalformed(i.Check(), "e_ehsize is " + std::to_string(sizeof(Ehdr) + delta));
  }
}

TEST(ElfCheckTest, ProgramHeaderEntrySizeMustBeExact) {
  for (int delta : {-1, 1}) {
    Image i;
    i.header().e_phentsize = static_cast<uint16_t>(sizeof(Phdr) + delta);
    ExpectMalformed(i.Check(), "e_phentsize is " + std::to_string(sizeof(Phdr) + delta));
  }
}

TEST(ElfCheckTest, NoProgramHeaders) {
  Image i;
  i.header().e_phnum = 0;
  ExpectMalformed(i.Check(), "no program headers (e_phnum is 0)");
}

TEST(ElfCheckTest, ProgramHeaderTableBoundary) {
  Image at_end;
  at_end.header().e_phoff = kFileSize - 2 * sizeof(Phdr);  // ends exactly at the end
  // The two entries read from there are zero bytes (PT_NULL, no file range).
  EXPECT_TRUE(at_end.Check().ok()) << at_end.Check();
  Image past;
  past.header().e_phoff = kFileSize - 2 * sizeof(Phdr) + 1;
  ExpectMalformed(past.Check(), "the program header table (2 entries) at file bytes [" +
                                    std::to_string(kFileSize - 2 * sizeof(Phdr) + 1) + ", " +
                                    std::to_string(kFileSize + 1) +
                                    ") extends past the end of the file (" + std::to_string(kFileSize) +
                                    " bytes)");
}

TEST(ElfCheckTest, ProgramHeaderTableOffsetNearTheTopDoesNotWrap) {
  Image i;
  i.header().e_phoff = UINT64_MAX - 8;
  ExpectMalformed(i.Check(), "overflows) extends past the end of the file");
}

TEST(ElfCheckTest, SectionHeaderEntrySizeMustBeExact) {
  for (int delta : {-1, 1}) {
    Image i;
    i.header().e_shentsize = static_cast<uint16_t>(sizeof(Shdr) + delta);
    ExpectMalformed(i.Check(), "e_shentsize is " + std::to_string(sizeof(Shdr) + delta));
  }
}

TEST(ElfCheckTest, NoSectionHeaderTableIsAllowed) {
  Image i;
  i.header().e_shoff = 0;
  i.header().e_shnum = 0;
  i.header().e_shentsize = 0;
  EXPECT_TRUE(i.Check().ok()) << i.Check();
}

TEST(ElfCheckTest, SectionHeaderTableBoundary) {
  const uint64_t table = kShnum * sizeof(Shdr);
  Image at_end;
  at_end.header().e_shoff = kFileSize - table;
  EXPECT_TRUE(at_end.Check().ok()) << at_end.Check();
  Image past;
  past.header().e_shoff = kFileSize - table + 1;
  ExpectMalformed(past.Check(), "the section header table (3 entries) at file bytes [" +
                                    std::to_string(kFileSize - table + 1) + ", " + std::to_string(kFileSize + 1) +
                                    ") extends past the end of the file");
  Image wraps;
  wraps.header().e_shoff = UINT64_MAX - 1;
  ExpectMalformed(wraps.Check(), "overflows) extends past the end of the file");
}

TEST(ElfCheckTest, ExtendedSectionCountNeedsTheFirstEntry) {
  Image at_end;
  at_end.header().e_shnum = 0;  // the count lives in entry 0
  at_end.header().e_shoff = kFileSize - sizeof(Shdr);
  EXPECT_TRUE(at_end.Check().ok()) << at_end.Check();
  Image past;
  past.header().e_shnum = 0;
  past.header().e_shoff = kFileSize - sizeof(Shdr) + 1;
  ExpectMalformed(past.Check(), "the section header table (1 entries)");
}

TEST(ElfCheckTest, LoadSegmentBoundary) {
  Image at_end;
  at_end.segment(0).p_offset = 1;
  at_end.segment(0).p_filesz = kFileSize - 1;
  EXPECT_TRUE(at_end.Check().ok()) << at_end.Check();
  Image past;
  past.segment(0).p_offset = 1;
  past.segment(0).p_filesz = kFileSize;
  ExpectMalformed(past.Check(), "segment 0 (PT_LOAD) at file bytes [1, " + std::to_string(kFileSize + 1) +
                                    ") extends past the end of the file (" + std::to_string(kFileSize) +
                                    " bytes)");
  Image offset_past;
  offset_past.segment(0).p_offset = kFileSize + 1;
  offset_past.segment(0).p_filesz = 1;
  ExpectMalformed(offset_past.Check(), "segment 0 (PT_LOAD)");
}

TEST(ElfCheckTest, DynamicSegmentBoundaryAndOverflow) {
  Image past;
  past.segment(1).p_filesz = 65;
  ExpectMalformed(past.Check(), "segment 1 (PT_DYNAMIC) at file bytes [" + std::to_string(kFileSize - 64) + ", " +
                                    std::to_string(kFileSize + 1) + ")");
  Image wraps;
  wraps.segment(1).p_filesz = UINT64_MAX;
  ExpectMalformed(wraps.Check(), "segment 1 (PT_DYNAMIC) at file bytes [" + std::to_string(kFileSize - 64) +
                                     ", " + std::to_string(kFileSize - 64) + " + " +
                                     std::to_string(UINT64_MAX) + " overflows)");
}

TEST(ElfCheckTest, SegmentWithoutFileBytesIsNotChecked) {
  Image i;
  i.segment(1).p_type = PT_GNU_STACK;
  i.segment(1).p_offset = UINT64_MAX;
  i.segment(1).p_filesz = 0;
  EXPECT_TRUE(i.Check().ok()) << i.Check();
}

// The descriptor form sees the same bytes as the file on disk.
TEST(ElfCheckTest, FileDescriptorFormReadsTheFile) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/elf_check_fd_test";
  Image i;
  i.segment(0).p_filesz = kFileSize + 1;
  {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, i.bytes.data(), i.bytes.size()), static_cast<ssize_t>(i.bytes.size()));
    ::close(fd);
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ExpectMalformed(CheckElfFile(fd), "segment 0 (PT_LOAD)");
  ::close(fd);
}

}  // namespace
}  // namespace teplug::core
