// Plugin and file-system text cannot forge log lines, drive the terminal or
// break UTF-8: hostile_forged_text (vendor, version and a WARN log line full
// of newlines, ESC sequences and 0xFF), hostile_forged_refusal (the same in
// its entry's error message) and plugin files whose NAMES hold a newline, an
// ESC and 0xFF, loaded by the loader and by a kernel. Every line the log sink
// receives is checked with an independent UTF-8 decoder, and lines are
// counted: each message is one physical line with one "teplug " header.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "core/kernel/kernel.h"
#include "core/loader/load_report.h"
#include "core/loader/plugin_loader.h"
#include "core/log/printable_text_oracle.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/hostile/hostile_test_support.h"

namespace teplug::core {
namespace {

using ::testing::HasSubstr;
using teplug::testing::CopyFile;
using teplug::testing::LogCapture;
using teplug::testing::MakeTempDir;
using teplug::testing::PluginPath;
using teplug::testing::RealPath;

// FORGED_TEXT of hostile_entry.c, as the host must show it: one line.
const char kForgedEscaped[] =
    "\\x0ateplug WARN: plugin /opt/other/libteplug_other.so (api) refused: forged\\x0d\\x1b[2J"
    "\\x1b]0;owned\\x07\\xff";
// A file name that tries the same.
const char kForgedName[] = "libteplug_evil\nteplug WARN: forged\x1b[31m\xff.so";
const char kForgedNameEscaped[] = "libteplug_evil\\x0ateplug WARN: forged\\x1b[31m\\xff.so";

using teplug::testing::kNoneTaken;

// Checks one sink message: a single line (so the only "teplug " header at a
// line start is the logger's own), printable UTF-8 by the independent decoder.
void ExpectOneSafeLine(const std::string& message) {
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(message.find('\r'), std::string::npos) << message;
  EXPECT_TRUE(testing::IsPrintableUtf8(message)) << message;
  EXPECT_TRUE(absl::StartsWith(message, "teplug ")) << message;
}

// A copy of the plugin `case_name` in a fresh directory, under kForgedName.
std::string ForgedNameCopy(const std::string& case_name) {
  const std::string dir = MakeTempDir("forged_" + case_name);
  const std::string to = dir + "/" + kForgedName;
  CopyFile(RealPath(PluginPath("tests/hostile", case_name)), to, 0755);
  return to;
}

TEST(ForgedTextTest, VendorVersionAndLogLineAreEscapedAtTheLoader) {
  const std::string path = RealPath(PluginPath("tests/hostile", "hostile_forged_text"));
  LogCapture log;
  absl::StatusOr<LoadedProvider> loaded =
      LoadPluginFile({path, "api"}, LoadPolicy{}, kNoneTaken, log.logger());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->provider->vendor, std::string("acme") + kForgedEscaped);
  EXPECT_EQ(loaded->provider->version, std::string("1.0") + kForgedEscaped);
  const std::vector<std::string> lines = log.AllLines();
  ASSERT_EQ(lines.size(), 1u) << ::testing::PrintToString(lines);
  EXPECT_EQ(lines[0], std::string("teplug WARN: plugin libteplug_hostile_forged_text.so: about to "
                                  "register") +
                          kForgedEscaped);
  ExpectOneSafeLine(lines[0]);
}

TEST(ForgedTextTest, AnEntryErrorMessageIsOneEscapedRefusalLine) {
  const std::string path = RealPath(PluginPath("tests/hostile", "hostile_forged_refusal"));
  LogCapture log;
  const PluginCandidate candidate{path, "api"};
  absl::StatusOr<LoadedProvider> loaded =
      LoadPluginFile(candidate, LoadPolicy{}, kNoneTaken, log.logger());
  ASSERT_FALSE(loaded.ok());
  const std::string reason =
      std::string("teplug_plugin_entry returned internal: hostile_forged_refusal") + kForgedEscaped;
  EXPECT_EQ(loaded.status().message(), "plugin " + path + " (api) refused: " + reason);
  const std::vector<std::string> lines = log.AllLines();
  ASSERT_EQ(lines.size(), 1u) << ::testing::PrintToString(lines);
  ExpectOneSafeLine(lines[0]);
  const LoadReportEntry entry = RefusedReportEntry(candidate, loaded.status());
  EXPECT_EQ(entry.reason, reason);
  EXPECT_EQ(FormatLoadReport({entry}), "refused " + path + " (api): " + reason + "\n");
}

TEST(ForgedTextTest, APathWithANewlineIsEscapedInLogLinesAndTheReport) {
  const std::string good = ForgedNameCopy("hostile_good");
  LogCapture log;
  const PluginCandidate candidate{good, "api"};
  absl::StatusOr<LoadedProvider> loaded =
      LoadPluginFile(candidate, LoadPolicy{}, kNoneTaken, log.logger());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(absl::EndsWith(loaded->provider->source, std::string("/") + kForgedNameEscaped))
      << loaded->provider->source;
  EXPECT_EQ(loaded->provider->library->path(), RealPath(good)) << "opened by its raw path";
  // hostile_good logs one INFO line during its entry, labelled by file name.
  ASSERT_EQ(log.AllLines().size(), 1u) << ::testing::PrintToString(log.AllLines());
  EXPECT_EQ(log.AllLines()[0], std::string("teplug INFO: plugin ") + kForgedNameEscaped +
                                   ": registering 2 implementations");
  ExpectOneSafeLine(log.AllLines()[0]);
  const LoadReportEntry entry = LoadedReportEntry(candidate, *loaded);
  EXPECT_TRUE(testing::IsPrintableUtf8(entry.path)) << entry.path;
  EXPECT_THAT(FormatLoadReport({entry}), HasSubstr(kForgedNameEscaped));

  const std::string refused = ForgedNameCopy("hostile_forged_refusal");
  LogCapture refusal_log;
  loaded = LoadPluginFile({refused, "api"}, LoadPolicy{}, kNoneTaken, refusal_log.logger());
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(std::string(loaded.status().message()),
              HasSubstr(std::string(kForgedNameEscaped) + " (api) refused: "));
  ASSERT_EQ(refusal_log.AllLines().size(), 1u);
  ExpectOneSafeLine(refusal_log.AllLines()[0]);
}

// The kernel, as `teplug` runs it: each refusal and each plugin log line is
// one line of its log sink, and what it lists and reports is escaped.
TEST(ForgedTextTest, TheKernelLogsOneSafeLinePerEventAndListsEscapedText) {
  absl::Mutex mutex;
  std::vector<std::string> messages;
  KernelOptions options;
  options.use_environment = false;
  options.load_builtins = false;
  options.config_text = "log_level: \"warn\"\n";
  options.log_sink = [&](LogLevel, absl::string_view line) {
    absl::MutexLock lock(&mutex);
    messages.emplace_back(line);
  };
  options.plugin_paths = {
      RealPath(PluginPath("tests/hostile", "hostile_forged_text")),  // loads, 1 WARN log line
      ForgedNameCopy("hostile_forged_refusal"),                       // refused: 1 WARN
      MakeTempDir("forged_missing") + "/" + kForgedName,              // cannot resolve: 1 WARN
  };
  absl::StatusOr<std::unique_ptr<Kernel>> kernel = Kernel::Create(std::move(options));
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  {
    absl::MutexLock lock(&mutex);
    ASSERT_EQ(messages.size(), 3u) << ::testing::PrintToString(messages);
    for (const std::string& m : messages) ExpectOneSafeLine(m);
  }
  const std::vector<ProviderListing> providers = (*kernel)->ListProviders();
  ASSERT_EQ(providers.size(), 1u);
  EXPECT_EQ(providers[0].vendor, std::string("acme") + kForgedEscaped);
  EXPECT_EQ(providers[0].version, std::string("1.0") + kForgedEscaped);
  int refused = 0;
  for (const LoadReportEntry& e : (*kernel)->LoadReport()) {
    refused += e.loaded ? 0 : 1;
    for (const std::string& text : {e.path, e.origin, e.reason, e.provider}) {
      EXPECT_TRUE(testing::IsPrintableUtf8(text)) << text;
    }
    if (!e.loaded) {
      EXPECT_THAT(e.path, HasSubstr(kForgedNameEscaped));
    }
  }
  EXPECT_EQ(refused, 2);
  const std::string report = FormatLoadReport((*kernel)->LoadReport());
  EXPECT_EQ(std::vector<std::string>(absl::StrSplit(report, '\n', absl::SkipEmpty())).size(), 3u)
      << report;
}

}  // namespace
}  // namespace teplug::core
