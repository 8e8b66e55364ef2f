// AskSupports is how the core hears a plugin's `supports` answer, for
// selection and for each collective op on a bound communicator. A plugin
// may misbehave with the reason buffer; the core must neither read past it
// nor lose the fact that the plugin said no.
#include <cstring>
#include <string>

#include "core/select/ask_supports.h"
#include "gtest/gtest.h"

namespace teplug::core {
namespace {

TeplugBool Yes(TeplugObject*, int32_t, const void*, char*, size_t) { return 1; }
TeplugBool NoWithReason(TeplugObject*, int32_t op, const void*, char* reason, size_t size) {
  std::snprintf(reason, size, "op %d needs k %% 8 == 0", op);
  return 0;
}
TeplugBool NoWithoutReason(TeplugObject*, int32_t, const void*, char*, size_t) { return 0; }
// Fills the whole buffer and leaves no terminator.
TeplugBool NoFillingTheBuffer(TeplugObject*, int32_t, const void*, char* reason, size_t size) {
  std::memset(reason, 'x', size);
  return 0;
}

// Says no with a reason that would forge a log line and drive the terminal.
TeplugBool NoWithControlBytes(TeplugObject*, int32_t, const void*, char* reason, size_t size) {
  std::snprintf(reason, size, "no\nteplug WARN: forged\x1b[2J\xff");
  return 0;
}

Implementation WithHook(TeplugSupportsFn fn) {
  Implementation impl;
  impl.supports = fn;
  return impl;
}

TEST(AskSupportsTest, NoHookOrYesServes) {
  EXPECT_FALSE(AskSupports(WithHook(nullptr), TEPLUG_OP_GEMM, nullptr).has_value());
  EXPECT_FALSE(AskSupports(WithHook(&Yes), TEPLUG_OP_GEMM, nullptr).has_value());
}

TEST(AskSupportsTest, NoKeepsThePluginsReason) {
  EXPECT_EQ(AskSupports(WithHook(&NoWithReason), 7, nullptr), "op 7 needs k % 8 == 0");
}

TEST(AskSupportsTest, NoWithoutAReasonIsStillANo) {
  EXPECT_EQ(AskSupports(WithHook(&NoWithoutReason), TEPLUG_OP_GEMM, nullptr),
            "declined by supports() without a reason");
}

// The reason enters decision records, errors handed to callers and logs:
// it is kept as one escaped line.
TEST(AskSupportsTest, TheReasonIsEscaped) {
  EXPECT_EQ(AskSupports(WithHook(&NoWithControlBytes), TEPLUG_OP_GEMM, nullptr),
            "no\\x0ateplug WARN: forged\\x1b[2J\\xff");
}

TEST(AskSupportsTest, AnUnterminatedReasonIsCutAtTheBuffer) {
  EXPECT_EQ(AskSupports(WithHook(&NoFillingTheBuffer), TEPLUG_OP_GEMM, nullptr), std::string(255, 'x'));
}

}  // namespace
}  // namespace teplug::core
