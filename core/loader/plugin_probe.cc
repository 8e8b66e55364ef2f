#include "core/loader/plugin_probe.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/loader/entry_symbol.h"
#include "core/loader/entry_transaction.h"
#include "core/loader/plugin_log_context.h"

namespace teplug::core {
namespace {

using Clock = std::chrono::steady_clock;

constexpr absl::string_view kProbe = "pre-flight probe: ";

// Where the child is; written before each step starts.
enum class Phase : uint8_t { kStartup = 0, kDlopen = 1, kEntrySymbol = 2, kEntry = 3 };
constexpr Phase kLastPhase = Phase::kEntry;

const char* PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kStartup: return "the child's startup";
    case Phase::kDlopen: return "dlopen (the library's constructors)";
    case Phase::kEntrySymbol: return "the lookup of teplug_plugin_entry";
    case Phase::kEntry: return "teplug_plugin_entry";
  }
  return "an unknown phase";
}

// The records the child writes: [kind:1][payload length:4][payload].
enum RecordKind : uint8_t {
  kPhaseRecord = 1,   // payload: one Phase byte
  kResultRecord = 2,  // payload: absl::StatusCode (int32), then the message
};
constexpr size_t kRecordHeader = 1 + sizeof(uint32_t);
// A record fits in one atomic pipe write (PIPE_BUF is at least 4096).
constexpr size_t kMaxRecord = 4096;
constexpr size_t kMaxMessage = kMaxRecord - kRecordHeader - sizeof(int32_t);

// --- the child ---

void WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone or gave up: nothing to tell
    data += n;
    size -= static_cast<size_t>(n);
  }
}

void SendRecord(int fd, RecordKind kind, const std::string& payload) {
  std::string record(kRecordHeader, '\0');
  record[0] = static_cast<char>(kind);
  const uint32_t length = static_cast<uint32_t>(payload.size());
  std::memcpy(&record[1], &length, sizeof length);
  record += payload;
  WriteAll(fd, record.data(), record.size());
}

void SendPhase(int fd, Phase phase) { SendRecord(fd, kPhaseRecord, std::string(1, static_cast<char>(phase))); }

void SendResult(int fd, const absl::Status& status) {
  const int32_t code = static_cast<int32_t>(status.code());
  std::string payload(sizeof code, '\0');
  std::memcpy(&payload[0], &code, sizeof code);
  const absl::string_view message = status.message().substr(0, kMaxMessage);
  payload.append(message.data(), message.size());
  SendRecord(fd, kResultRecord, payload);
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The host's handlers for fatal signals (a crash reporter, a runtime's
// fault handler) are the host's: in the child a fault must end the child
// with the signal the parent names, not run host code. Every signal is
// unblocked, so a blocked one cannot hide a fault or an abort either.
void DefaultFatalSignals() {
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS}) {
    struct sigaction action {};
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    ::sigaction(sig, &action, nullptr);
  }
  sigset_t all;
  sigfillset(&all);
  ::sigprocmask(SIG_UNBLOCK, &all, nullptr);
}

// Loads the plugin and reports to `fd`; never returns.
[[noreturn]] void RunChild(int fd, const std::string& path, const LoadPolicy& policy) {
  DefaultFatalSignals();
  const int devnull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (devnull >= 0) {
    ::dup2(devnull, STDOUT_FILENO);
    ::close(devnull);
  }
  SendPhase(fd, Phase::kDlopen);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    SendResult(fd, absl::FailedPreconditionError(
                       absl::StrCat("dlopen failed: ", why != nullptr ? why : "no dlerror message")));
    ::_exit(0);
  }
  SendPhase(fd, Phase::kEntrySymbol);
  absl::StatusOr<TeplugPluginEntryFn> entry = FindPluginEntry(handle);
  if (!entry.ok()) {
    SendResult(fd, entry.status());
    ::_exit(0);
  }
  SendPhase(fd, Phase::kEntry);
  EntrySubject subject;
  subject.entry = *entry;
  subject.plugin_path = path;
  subject.source = path;
  // A logger of the child's own (the parent's may be locked by a thread
  // that does not exist here); plugin log lines are dropped.
  subject.log_context = std::make_shared<PluginLogContext>(
      std::make_shared<Logger>(LogLevel::kError, [](LogLevel, absl::string_view) {}), BaseName(path));
  // Never destroyed: releasing the plugin's objects is the in-process
  // load's business, and _exit skips it.
  auto* loaded = new absl::StatusOr<LoadedProvider>(
      RunEntryTransaction(subject, policy, ProviderNameTaken()));
  SendResult(fd, loaded->status());
  ::_exit(0);
}

// --- the parent ---

// What the parent read from the child.
struct Report {
  Phase phase = Phase::kStartup;
  std::optional<absl::Status> result;
  bool eof = false;        // the child closed the pipe (exited, most likely)
  bool timed_out = false;  // the deadline passed first
  std::string malformed;   // why a record could not be parsed, if one could not
};

// Parses the complete records at the front of `buffer` (removing them).
void ParseRecords(std::string* buffer, Report* report) {
  while (buffer->size() >= kRecordHeader && report->malformed.empty() && !report->result) {
    const uint8_t kind = static_cast<uint8_t>((*buffer)[0]);
    uint32_t length;
    std::memcpy(&length, buffer->data() + 1, sizeof length);
    if (length > kMaxRecord - kRecordHeader) {
      report->malformed = absl::StrCat("a record of ", length, " bytes (at most ", kMaxRecord - kRecordHeader, ")");
      return;
    }
    if (buffer->size() < kRecordHeader + length) return;  // the rest has not arrived yet
    const std::string payload = buffer->substr(kRecordHeader, length);
    buffer->erase(0, kRecordHeader + length);
    if (kind == kPhaseRecord && length == 1 && static_cast<uint8_t>(payload[0]) <= static_cast<uint8_t>(kLastPhase)) {
      report->phase = static_cast<Phase>(payload[0]);
    } else if (kind == kResultRecord && length >= sizeof(int32_t)) {
      int32_t code;
      std::memcpy(&code, payload.data(), sizeof code);
      if (code < 0 || code > static_cast<int32_t>(absl::StatusCode::kUnauthenticated)) {
        report->malformed = absl::StrCat("a result with status code ", code);
        return;
      }
      report->result = absl::Status(static_cast<absl::StatusCode>(code), payload.substr(sizeof code));
    } else {
      report->malformed = absl::StrCat("a record of kind ", kind, " and ", length, " bytes");
    }
  }
}

// Reads records until a verdict, end of file, a malformed record or the deadline.
Report ReadReport(int fd, Clock::time_point deadline) {
  Report report;
  std::string buffer;
  char chunk[kMaxRecord];
  while (!report.result && report.malformed.empty()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      report.timed_out = true;
      break;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, INT32_MAX)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;  // the loop checks the deadline
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      report.eof = true;
      break;
    }
    buffer.append(chunk, static_cast<size_t>(n));
    ParseRecords(&buffer, &report);
  }
  if (report.eof && !buffer.empty() && report.malformed.empty() && !report.result) {
    report.malformed = absl::StrCat(buffer.size(), " bytes of an incomplete record");
  }
  return report;
}

// How waiting for the child ended.
struct Waited {
  enum { kEnded, kStillRunning, kUnknowable } outcome;
  int status = 0;  // the wait status, for kEnded
};

// Waits for `pid` until `deadline`. kUnknowable when waitpid cannot report
// it (this process ignores SIGCHLD, so the kernel reaped the child itself).
Waited WaitUntil(pid_t pid, Clock::time_point deadline) {
  auto pause = std::chrono::microseconds(50);
  while (true) {
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return {Waited::kEnded, status};
    if (done < 0 && errno == ECHILD) return {Waited::kUnknowable};
    if (Clock::now() >= deadline) return {Waited::kStillRunning};
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(5000));
  }
}

// Kills (harmless when it already exited) and reaps the child; its status.
int KillAndReap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::string SignalName(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev != nullptr ? absl::StrCat("SIG", abbrev) : absl::StrCat("signal ", signal);
}

absl::Status Died(int status, Phase phase) {
  if (WIFSIGNALED(status)) {
    return absl::InternalError(
        absl::StrCat(kProbe, "killed by ", SignalName(WTERMSIG(status)), " during ", PhaseName(phase)));
  }
  return absl::InternalError(absl::StrCat(kProbe, "exited with status ", WEXITSTATUS(status),
                                          " without a verdict, during ", PhaseName(phase)));
}

absl::Status TimedOut(const LoadPolicy& policy, Phase phase) {
  return absl::DeadlineExceededError(absl::StrCat(kProbe, "no answer within ",
                                                  absl::ToInt64Milliseconds(policy.probe_timeout),
                                                  " ms (during ", PhaseName(phase), "); the child was killed"));
}

}  // namespace

absl::Status ProbePluginFile(const std::string& resolved_path, const LoadPolicy& policy) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return absl::UnavailableError(absl::StrCat(kProbe, "cannot create a pipe: ", std::strerror(errno)));
  }
  // What the child inherits unflushed, a plugin's exit() there would write again.
  std::fflush(nullptr);
  const Clock::time_point deadline = Clock::now() + absl::ToChronoMilliseconds(policy.probe_timeout);
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return absl::UnavailableError(absl::StrCat(kProbe, "cannot fork: ", std::strerror(error)));
  }
  if (pid == 0) {
    ::close(fds[0]);
    RunChild(fds[1], resolved_path, policy);
  }
  ::close(fds[1]);
  const Report report = ReadReport(fds[0], deadline);
  ::close(fds[0]);

  if (report.result) {
    KillAndReap(pid);  // it is exiting anyway
    return *report.result;
  }
  if (report.timed_out) {
    KillAndReap(pid);
    return TimedOut(policy, report.phase);
  }
  if (!report.malformed.empty()) {
    KillAndReap(pid);
    return absl::InternalError(absl::StrCat(kProbe, "malformed report from the child: ", report.malformed,
                                            " (during ", PhaseName(report.phase), ")"));
  }
  // End of file without a verdict: the child died or closed the pipe.
  const Waited waited = WaitUntil(pid, deadline);
  if (waited.outcome == Waited::kEnded) return Died(waited.status, report.phase);
  if (waited.outcome == Waited::kUnknowable) {
    return absl::InternalError(absl::StrCat(kProbe, "the child ended without a verdict, during ",
                                            PhaseName(report.phase),
                                            " (how cannot be read: this process ignores SIGCHLD)"));
  }
  KillAndReap(pid);
  return TimedOut(policy, report.phase);
}

}  // namespace teplug::core
