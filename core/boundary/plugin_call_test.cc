// TakePluginError and the call wrappers, fed error objects and exceptions as
// a careless or hostile plugin makes them.
#include "core/boundary/plugin_call.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "gtest/gtest.h"

namespace teplug::core {
namespace {

constexpr PluginCallSite kSite{"acme/gemm", "gemm"};

int g_destroyed = 0;
void CountingDestroy(TeplugError*) { ++g_destroyed; }

// An error object laid out by "the plugin", with whatever fields it chose.
TeplugError PluginError(int32_t code, const char* message, void (*destroy)(TeplugError*)) {
  TeplugError e{};
  e.struct_size = sizeof e;
  e.code = code;
  e.message = message;
  e.destroy = destroy;
  return e;
}

// Reads the host-made result and destroys it (with its own destroy, which
// must exist).
std::string Consume(TeplugError* e, int32_t* code) {
  EXPECT_NE(e, nullptr);
  if (e == nullptr) return "";
  EXPECT_NE(e->destroy, nullptr);
  EXPECT_NE(e->message, nullptr);
  std::string m = e->message;
  *code = e->code;
  e->destroy(e);
  return m;
}

TEST(TakePluginErrorTest, KeepsCodeAndMessageAndNamesTheSite) {
  g_destroyed = 0;
  TeplugError plugin = PluginError(TEPLUG_UNSUPPORTED, "k must be even", &CountingDestroy);
  int32_t code = 0;
  std::string m = Consume(TakePluginError(&plugin, kSite), &code);
  EXPECT_EQ(code, TEPLUG_UNSUPPORTED);
  EXPECT_EQ(m, "acme/gemm returned unsupported from gemm: k must be even");
  EXPECT_EQ(g_destroyed, 1) << "the plugin's object is destroyed once, with its own destroy";
}

TEST(TakePluginErrorTest, NullDestroyIsAbandonedNotCalled) {
  TeplugError plugin = PluginError(TEPLUG_UNSUPPORTED, "cannot", nullptr);
  int32_t code = 0;
  std::string m = Consume(TakePluginError(&plugin, kSite), &code);
  EXPECT_EQ(code, TEPLUG_UNSUPPORTED);
  EXPECT_NE(m.find("cannot"), std::string::npos) << m;
  EXPECT_NE(m.find("no destroy function and was abandoned"), std::string::npos) << m;
}

TEST(TakePluginErrorTest, NullMessageGetsAPlaceholder) {
  TeplugError plugin = PluginError(TEPLUG_UNAVAILABLE, nullptr, &CountingDestroy);
  int32_t code = 0;
  std::string m = Consume(TakePluginError(&plugin, kSite), &code);
  EXPECT_EQ(code, TEPLUG_UNAVAILABLE);
  EXPECT_EQ(m, "acme/gemm returned unavailable from gemm: (no message: the error's message was NULL)");
}

TEST(TakePluginErrorTest, UnknownCodeBecomesInternalNamingTheNumber) {
  for (int32_t bad : {-1, 0, TEPLUG_FAILED_PRECONDITION + 1, 77}) {
    TeplugError plugin = PluginError(bad, "odd", &CountingDestroy);
    int32_t code = 0;
    std::string m = Consume(TakePluginError(&plugin, kSite), &code);
    EXPECT_EQ(code, TEPLUG_INTERNAL) << bad;
    EXPECT_NE(m.find("unknown code " + std::to_string(bad) + " (treated as internal)"), std::string::npos) << m;
  }
  TeplugError last = PluginError(TEPLUG_FAILED_PRECONDITION, "edge", &CountingDestroy);
  int32_t code = 0;
  Consume(TakePluginError(&last, kSite), &code);
  EXPECT_EQ(code, TEPLUG_FAILED_PRECONDITION) << "the highest known code is kept";
}

TEST(TakePluginErrorTest, MessageIsEscapedToOneLine) {
  TeplugError plugin = PluginError(TEPLUG_UNSUPPORTED, "no\nWARN forged line \xff\x1b[2J", &CountingDestroy);
  int32_t code = 0;
  std::string m = Consume(TakePluginError(&plugin, kSite), &code);
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_EQ(m.find('\x1b'), std::string::npos) << m;
  EXPECT_NE(m.find("no\\x0aWARN forged line \\xff\\x1b[2J"), std::string::npos) << m;
}

TEST(TakePluginErrorTest, UnterminatedMessageIsReadOnlyUpToTheBound) {
  // Exactly the bound plus one readable byte, with no terminator: reading
  // further would leave the buffer (asan sees it).
  std::string buffer(kMaxPluginMessageBytes + 1, 'x');
  char* unterminated = new char[buffer.size()];
  std::memcpy(unterminated, buffer.data(), buffer.size());
  TeplugError plugin = PluginError(TEPLUG_UNSUPPORTED, unterminated, &CountingDestroy);
  int32_t code = 0;
  std::string m = Consume(TakePluginError(&plugin, kSite), &code);
  delete[] unterminated;
  EXPECT_NE(m.find(std::string(kMaxPluginMessageBytes, 'x') + "..."), std::string::npos);
  EXPECT_EQ(m.find(std::string(kMaxPluginMessageBytes + 1, 'x')), std::string::npos);
}

TEST(TakePluginErrorTest, TheEntryHasNoImplementation) {
  TeplugError plugin = PluginError(TEPLUG_INTERNAL, "broken", &CountingDestroy);
  int32_t code = 0;
  EXPECT_EQ(Consume(TakePluginError(&plugin, {"", "teplug_plugin_entry"}), &code),
            "teplug_plugin_entry returned internal: broken");
}

TEST(CallPluginTest, SuccessIsNull) {
  bool threw = false;
  EXPECT_EQ(CallPlugin(kSite, []() -> TeplugError* { return nullptr; }, &threw), nullptr);
  EXPECT_FALSE(threw);
}

TEST(CallPluginTest, ReturnedErrorsAreTakenOver) {
  static TeplugError plugin = PluginError(TEPLUG_UNSUPPORTED, nullptr, nullptr);
  bool threw = false;
  int32_t code = 0;
  std::string m = Consume(CallPlugin(kSite, []() { return &plugin; }, &threw), &code);
  EXPECT_FALSE(threw);
  EXPECT_EQ(code, TEPLUG_UNSUPPORTED);
  EXPECT_NE(m.find("message was NULL"), std::string::npos) << m;
}

TEST(CallPluginTest, ExceptionsBecomeInternal) {
  bool threw = false;
  int32_t code = 0;
  std::string m = Consume(
      CallPlugin(kSite, []() -> TeplugError* { throw std::runtime_error("bad\nthing"); }, &threw), &code);
  EXPECT_TRUE(threw);
  EXPECT_EQ(code, TEPLUG_INTERNAL);
  EXPECT_EQ(m, "C++ exception escaped acme/gemm gemm: bad\\x0athing");

  threw = false;
  m = Consume(CallPlugin(kSite, []() -> TeplugError* { throw 42; }, &threw), &code);
  EXPECT_TRUE(threw);
  EXPECT_EQ(m, "C++ exception escaped acme/gemm gemm: (not a std::exception)");
}

TEST(GuardPluginCallTest, ReportsWhetherItThrew) {
  std::string failure;
  int answer = 0;
  EXPECT_TRUE(GuardPluginCall(kSite, [&] { answer = 1; }, &failure));
  EXPECT_EQ(answer, 1);
  EXPECT_TRUE(failure.empty());
  EXPECT_FALSE(GuardPluginCall({"acme/gemm", "supports"}, [] { throw std::logic_error("nope"); }, &failure));
  EXPECT_EQ(failure, "C++ exception escaped acme/gemm supports: nope");
}

}  // namespace
}  // namespace teplug::core
