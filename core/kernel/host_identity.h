// Which host this process runs on, as ranks of a communicator compare it:
// ranks with equal ids share one running kernel and one /dev/shm, so they
// can share memory. The kernel counts a communicator's hosts with it at
// comm_create; `teplug run` uses the same id for the count it passes there.
#ifndef TEPLUG_CORE_KERNEL_HOST_IDENTITY_H_
#define TEPLUG_CORE_KERNEL_HOST_IDENTITY_H_

#include <string>

#include "absl/strings/string_view.h"

namespace teplug::core {

// `override_id` when non-empty (the TEPLUG_HOST_ID environment variable, so
// that an operator or a test can say which ranks share a host), else the
// kernel's boot id with the device and inode of /dev/shm (containers with a
// private /dev/shm are hosts of their own), else "host:" and the host name.
std::string LocalHostId(absl::string_view override_id);

// LocalHostId of the TEPLUG_HOST_ID environment variable (unset: "").
std::string LocalHostIdFromEnvironment();

}  // namespace teplug::core

#endif  // TEPLUG_CORE_KERNEL_HOST_IDENTITY_H_
