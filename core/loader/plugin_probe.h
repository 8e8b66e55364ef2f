// The pre-flight probe: load a plugin once in a forked child before loading
// it in this process, so that a plugin that would take the host down (a
// constructor that calls exit() or crashes, an entry that segfaults, aborts,
// corrupts the heap or never returns) is refused with a reason instead.
//
// The child (a copy of this process with only the forking thread) dlopens the
// library, checks the entry symbol, runs the entry with the loader's real
// staging registrar and validation (RunEntryTransaction; provider names are
// not checked for clashes there, the in-process load does that), and writes
// its verdict to a pipe. Before each step it writes a phase marker, so the
// parent can say where a child that died was: "dlopen (the library's
// constructors)", "the lookup of teplug_plugin_entry", "teplug_plugin_entry".
// Records are length-checked ([kind:1][length:4][payload], at most 4 KiB); a
// record the parent cannot parse refuses the plugin.
//
// Fork hazards, and what the child does about them: it touches no object
// the parent's other threads may hold a lock on (no parent logger: plugin
// log lines in the child are dropped; it builds its own logger and log
// context), puts the fatal signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
// SIGTRAP, SIGSYS) back to their default action and unblocks every signal
// (a host's crash handler must not run for the plugin's fault), sends its
// stdout to /dev/null (a plugin's output, or a copy of
// the parent's unflushed stdout buffer flushed by a plugin's exit(), would
// otherwise reach the parent's stdout twice; the parent flushes its stdio
// before forking), and ends with _exit (no atexit handlers, no static
// destructors, no dlclose). The pipe is O_CLOEXEC. The parent always kills
// (SIGKILL, harmless after the child exited) and reaps the child: no
// zombies, no leaked descriptors. What remains: if another thread of the
// parent held the dynamic loader's lock at the fork, the child's dlopen can
// block; the timeout then refuses the plugin.
#ifndef TEPLUG_CORE_LOADER_PLUGIN_PROBE_H_
#define TEPLUG_CORE_LOADER_PLUGIN_PROBE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "core/loader/plugin_loader.h"

namespace teplug::core {

// Probes the library at `resolved_path` (already resolved and checked:
// security, pin, ELF). OK when the child loaded it and the transaction
// accepted it. Otherwise the bare refusal reason (the caller adds "<who>
// refused: "):
//   * the transaction's own reason and code, when the child refused it
//     cleanly (the same text an in-process load gives);
//   * "pre-flight probe: killed by SIGSEGV during teplug_plugin_entry"
//     (INTERNAL) for a child killed by a signal;
//   * "pre-flight probe: exited with status 3 during dlopen (the library's
//     constructors)" (INTERNAL) for a child that exited without a verdict;
//   * "pre-flight probe: no answer within 10000 ms (during
//     teplug_plugin_entry); the child was killed" (DEADLINE_EXCEEDED);
//   * "pre-flight probe: the child ended without a verdict, during <phase>
//     (how cannot be read: this process ignores SIGCHLD)" (INTERNAL) when
//     the kernel reaped the child itself;
//   * "pre-flight probe: malformed report from the child: ..." (INTERNAL);
//   * "pre-flight probe: cannot fork: ..." (UNAVAILABLE) and the like when
//     the probe itself cannot run.
absl::Status ProbePluginFile(const std::string& resolved_path, const LoadPolicy& policy);

}  // namespace teplug::core

#endif  // TEPLUG_CORE_LOADER_PLUGIN_PROBE_H_
