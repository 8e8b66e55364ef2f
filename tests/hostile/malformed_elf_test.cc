// Damaged copies of a real plugin library: cut short at several places
// (inside the ELF header, inside the program header table, inside the last
// PT_LOAD segment), with the wrong class or machine, with a section header
// table past the end of the file, empty, or not ELF at all. Each is refused
// before dlopen with "truncated or malformed ELF: <what>", exactly one WARN,
// and the host goes on loading a good plugin afterwards.
#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "core/loader/plugin_loader.h"
#include "tests/hostile/hostile_test_support.h"

namespace teplug::core {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using teplug::testing::CopyFile;
using teplug::testing::IsLoaded;
using teplug::testing::LogCapture;
using teplug::testing::MakeTempDir;
using teplug::testing::PluginPath;
using teplug::testing::RealPath;

using teplug::testing::kNoneTaken;

std::string GoodPlugin() { return RealPath(PluginPath("tests/hostile", "hostile_good")); }

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The good plugin's bytes, changed by `damage`, written to a fresh 0755 file.
std::string DamagedCopy(const std::string& name, const std::function<void(std::string*)>& damage) {
  std::string bytes = ReadAll(GoodPlugin());
  EXPECT_GT(bytes.size(), sizeof(ElfW(Ehdr)));
  damage(&bytes);
  const std::string path = MakeTempDir("malformed_elf") + "/libteplug_" + name + ".so";
  CopyFile(GoodPlugin(), path, 0755);  // the mode; the bytes are replaced next
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return path;
}

ElfW(Ehdr) HeaderOf(const std::string& bytes) {
  ElfW(Ehdr) h;
  std::memcpy(&h, bytes.data(), sizeof h);
  return h;
}

// The PT_LOAD segment with the highest file offset.
ElfW(Phdr) LastLoad(const std::string& bytes) {
  const ElfW(Ehdr) h = HeaderOf(bytes);
  ElfW(Phdr) last{};
  for (int i = 0; i < h.e_phnum; ++i) {
    ElfW(Phdr) p;
    std::memcpy(&p, bytes.data() + h.e_phoff + i * sizeof p, sizeof p);
    if (p.p_type == PT_LOAD && p.p_filesz > 0 && p.p_offset >= last.p_offset) last = p;
  }
  return last;
}

struct Damage {
  std::string name;
  std::function<void(std::string*)> damage;
  std::string reason;  // after "truncated or malformed ELF: "
};

void PrintTo(const Damage& d, std::ostream* os) { *os << d.name; }

class MalformedElfTest : public ::testing::TestWithParam<Damage> {};

TEST_P(MalformedElfTest, IsRefusedBeforeDlopen) {
  const Damage& d = GetParam();
  const std::string path = RealPath(DamagedCopy(d.name, d.damage));
  LogCapture log;
  absl::StatusOr<LoadedProvider> loaded = LoadPluginFile({path, "api"}, LoadPolicy{}, kNoneTaken, log.logger());
  ASSERT_FALSE(loaded.ok()) << d.name << " was loaded";
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument) << loaded.status();
  const std::string message(loaded.status().message());
  EXPECT_THAT(message, StartsWith("plugin " + path + " (api) refused: truncated or malformed ELF: "));
  EXPECT_THAT(message, HasSubstr(d.reason));
  ASSERT_EQ(log.Lines(LogLevel::kWarn).size(), 1u) << ::testing::PrintToString(log.AllLines());
  EXPECT_FALSE(IsLoaded(path));

  // The host still loads a good plugin.
  absl::StatusOr<LoadedProvider> good = LoadPluginFile({GoodPlugin(), "api"}, LoadPolicy{}, kNoneTaken, nullptr);
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->provider->name, "hostile_good");
}

std::string Digits(uint64_t n) { return std::to_string(n); }

const Damage kDamages[] = {
    {"empty", [](std::string* b) { b->clear(); }, "the file is empty"},
    {"not_elf", [](std::string* b) { *b = "this is a text file, not a library\n"; },
     "not an ELF file (the first bytes are 74 68 69 73, not 7f 45 4c 46)"},
    {"cut_in_ident", [](std::string* b) { b->resize(10); },
     "the file is 10 bytes, shorter than the 16-byte ELF identification"},
    {"cut_in_header", [](std::string* b) { b->resize(40); },
     "the file is 40 bytes, shorter than the " + Digits(sizeof(ElfW(Ehdr))) + "-byte ELF header"},
    {"cut_in_program_headers",
     [](std::string* b) { b->resize(HeaderOf(*b).e_phoff + sizeof(ElfW(Phdr)) + 3); },
     "the program header table"},
    {"cut_in_last_load_segment",  // without a section header table, which would end the file
     [](std::string* b) {
       ElfW(Ehdr) h = HeaderOf(*b);
       h.e_shoff = 0;
       h.e_shnum = 0;
       std::memcpy(b->data(), &h, sizeof h);
       const ElfW(Phdr) last = LastLoad(*b);
       b->resize(last.p_offset + last.p_filesz / 2);
     },
     "(PT_LOAD) at file bytes"},
    {"cut_one_byte_short",  // the section header table ends the file
     [](std::string* b) { b->resize(b->size() - 1); },
     "the section header table"},
    {"wrong_class", [](std::string* b) { (*b)[EI_CLASS] = ELFCLASS32; }, "EI_CLASS is 1 (ELFCLASS32)"},
    {"wrong_machine",
     [](std::string* b) {
       ElfW(Ehdr) h = HeaderOf(*b);
       h.e_machine = EM_SPARC;
       std::memcpy(b->data(), &h, sizeof h);
     },
     "e_machine is 2, this host is"},
    {"section_headers_past_eof",
     [](std::string* b) {
       ElfW(Ehdr) h = HeaderOf(*b);
       h.e_shoff = b->size();
       std::memcpy(b->data(), &h, sizeof h);
     },
     "the section header table"},
    {"program_headers_past_eof",
     [](std::string* b) {
       ElfW(Ehdr) h = HeaderOf(*b);
       h.e_phoff = b->size() - sizeof(ElfW(Phdr));
       std::memcpy(b->data(), &h, sizeof h);
     },
     "the program header table"},
};

INSTANTIATE_TEST_SUITE_P(Damaged, MalformedElfTest, ::testing::ValuesIn(kDamages),
                         [](const ::testing::TestParamInfo<Damage>& info) { return info.param.name; });

}  // namespace
}  // namespace teplug::core
