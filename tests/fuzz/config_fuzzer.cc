// Fuzz target: a config file's bytes through every way the core reads one
// (text format, JSON, and LoadConfigFile's choice between them by content)
// and, when it is accepted, through the snapshot the kernel consults.
//
// The input is the file itself (no framing), so the seed corpus is plain
// config files. What must hold for every input:
//  - each parser returns a config or InvalidArgument, never crashes;
//  - a refusal lists its problems one per line, every line
//    "<source>:..." and free of control bytes and malformed UTF-8 (the
//    file's own text is untrusted and is echoed in these messages);
//  - an accepted config printed back as text format (and as JSON, when its
//    strings are UTF-8, which protobuf's JSON needs) is accepted again:
//    validation depends on the content, not its spelling;
//  - an accepted config compiles into a snapshot whose rules evaluate
//    against any op.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "core/config/config_loader.h"
#include "core/config/config_snapshot.h"
#include "core/config/config_validation.h"
#include "core/config/random_op_facts.h"
#include "core/log/untrusted_text.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "tests/fuzz/fuzz_input.h"

namespace teplug::fuzz {
namespace {

using config::ValidatedConfig;

// Checks the contract every refusal keeps (config_loader.h).
void CheckRefusal(const absl::Status& status, absl::string_view source) {
  TEPLUG_FUZZ_CHECK(status.code() == absl::StatusCode::kInvalidArgument ||
                        status.code() == absl::StatusCode::kNotFound,
                    status.ToString());
  TEPLUG_FUZZ_CHECK(!status.message().empty(), "a refusal without a message");
  for (absl::string_view line : absl::StrSplit(status.message(), '\n')) {
    TEPLUG_FUZZ_CHECK(absl::StartsWith(line, absl::StrCat(source, ":")),
                      absl::StrCat("problem line does not start with the source: ",
                                   core::EscapeUntrustedText(line)));
    TEPLUG_FUZZ_CHECK(core::IsSafeText(line),
                      absl::StrCat("problem line carries unescaped bytes: ",
                                   core::EscapeUntrustedText(line)));
  }
}

// Compiles the config and evaluates a few ops against it.
void ExerciseSnapshot(const ValidatedConfig& config) {
  const auto snapshot = config::ConfigSnapshot::Create(config, /*generation=*/1);
  TEPLUG_FUZZ_CHECK(snapshot->rules().size() == static_cast<size_t>(config.proto.rules_size()),
                    "a rule was lost when compiling the snapshot");
  config::testing::RandomOpFacts ops(/*seed=*/config.proto.rules_size());
  for (int i = 0; i < 8; ++i) {
    const config::OpFacts facts = ops.Next();
    const config::RuleVerdicts verdicts = snapshot->Evaluate(facts);
    for (const config::CompiledRule* rule : verdicts.matched()) {
      TEPLUG_FUZZ_CHECK(rule->Matches(facts), "Evaluate returned a rule that does not match");
      TEPLUG_FUZZ_CHECK(!rule->Describe().empty(), "a rule without a description");
    }
    snapshot->IsStrict(verdicts, facts.interface_name);
    for (const config::Provider& provider : config.proto.providers()) {
      snapshot->ProviderEnabled(provider.name());
      snapshot->PriorityOverride(provider.name(), facts.interface_name);
      verdicts.DeniedBy(provider.name());
      verdicts.NotAllowedBy(provider.name());
      verdicts.PreferenceRank(provider.name());
    }
  }
  // Provider names are checked once plugins are known; any answer is fine
  // as long as a refusal keeps the message contract.
  const absl::Status names = config::ValidateProviderNames(config, {"reference", "cuda"});
  if (!names.ok()) CheckRefusal(names, config.source_name);
}

// An accepted config, written back by protobuf, must be accepted again.
void CheckRoundTrip(const ValidatedConfig& config) {
  std::string text;
  TEPLUG_FUZZ_CHECK(google::protobuf::TextFormat::PrintToString(config.proto, &text),
                    "TextFormat could not print an accepted config");
  const auto from_text = config::ParseConfigText(text, "round_trip.textproto");
  TEPLUG_FUZZ_CHECK(from_text.ok(), absl::StrCat("the accepted config printed as text is refused: ",
                                                 from_text.status().ToString(), "\n", text));

  std::string json;
  TEPLUG_FUZZ_CHECK(google::protobuf::util::MessageToJsonString(config.proto, &json).ok(),
                    "protobuf could not print an accepted config as JSON");
  // Text format carries any bytes in a string (a path need not be UTF-8);
  // protobuf's JSON printer drops strings that are not UTF-8. Only what JSON
  // can carry is expected to come back.
  config::Config printed;
  if (!google::protobuf::util::JsonStringToMessage(json, &printed).ok() ||
      !google::protobuf::util::MessageDifferencer::Equals(printed, config.proto)) {
    return;
  }
  const auto from_json = config::ParseConfigJson(json, "round_trip.json");
  TEPLUG_FUZZ_CHECK(from_json.ok(), absl::StrCat("the accepted config printed as JSON is refused: ",
                                                 from_json.status().ToString(), "\n", json));
}

void CheckParse(const absl::StatusOr<ValidatedConfig>& parsed, absl::string_view source) {
  if (!parsed.ok()) {
    CheckRefusal(parsed.status(), source);
    return;
  }
  TEPLUG_FUZZ_CHECK(parsed->source_name == source, "the config forgot where it came from");
  ExerciseSnapshot(*parsed);
  CheckRoundTrip(*parsed);
}

// LoadConfigFile on a file holding `text` (an in-memory file, whose
// /proc/self/fd path has no extension, so the content decides the format).
void CheckLoadFile(absl::string_view text) {
  const int fd = memfd_create("teplug-config-fuzz", MFD_CLOEXEC);
  TEPLUG_FUZZ_CHECK(fd >= 0, "memfd_create failed");
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    TEPLUG_FUZZ_CHECK(n > 0, "write to the memfd failed");
    written += static_cast<size_t>(n);
  }
  const std::string path = absl::StrCat("/proc/self/fd/", fd);
  CheckParse(config::LoadConfigFile(path), path);
  close(fd);
}

}  // namespace
}  // namespace teplug::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace teplug::fuzz;
  // Configs are small files; larger inputs only slow the search down.
  if (size > 64 * 1024) return 0;
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  CheckParse(teplug::config::ParseConfigText(text, "fuzz.textproto"), "fuzz.textproto");
  CheckParse(teplug::config::ParseConfigJson(text, "fuzz.json"), "fuzz.json");
  CheckLoadFile(text);
  return 0;
}
