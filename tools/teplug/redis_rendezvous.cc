#include "tools/teplug/redis_rendezvous.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gloo/common/error.h"
#include "gloo/common/logging.h"
#include "gloo/rendezvous/redis_store.h"

namespace teplug::cli {
namespace {

// Every rank writes only its own marks (a key is set once, and Gloo's
// RedisStore::set throws, leaking its reply, on a key already set): its
// arrival, its abort note and its finished mark.
std::string ArrivalName(int rank) { return absl::StrCat("arrived/", rank); }

// Whether a TCP connection to host:port opens within 2 s (the RedisStore's
// own connect timeout). Checked before constructing the store: its
// constructor throws on a failed connect without freeing its hiredis
// context.
absl::Status Reachable(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return absl::UnavailableError(absl::StrCat("cannot resolve ", host, ": ", gai_strerror(rc)));
  }
  std::string why = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                            a->ai_protocol);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    int err = ::connect(fd, a->ai_addr, a->ai_addrlen) == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      err = ::poll(&p, 1, 2000) == 1 ? 0 : ETIMEDOUT;
      socklen_t len = sizeof err;
      if (err == 0) ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    }
    ::close(fd);
    if (err == 0) {
      ::freeaddrinfo(found);
      return absl::OkStatus();
    }
    why = std::strerror(err);
  }
  ::freeaddrinfo(found);
  return absl::UnavailableError(absl::StrCat("cannot connect to ", host, ":", port, ": ", why));
}
std::string AbortName(int rank) { return absl::StrCat("aborted/", rank); }
std::string FinishedName(int rank) { return absl::StrCat("finished/", rank); }

}  // namespace

absl::StatusOr<RedisAddress> ParseRedisAddress(const std::string& text) {
  const std::string form = "redis:HOST:PORT/RUN (RUN: a name new for every run)";
  const size_t slash = text.find('/');
  const size_t colon = text.rfind(':', slash);
  if (slash == std::string::npos || colon == std::string::npos || colon == 0) {
    return absl::InvalidArgumentError(absl::StrCat("--rendezvous redis:", absl::CHexEscape(text),
                                                   ": expected ", form));
  }
  RedisAddress a;
  a.host = text.substr(0, colon);
  a.run = text.substr(slash + 1);
  const std::string port = text.substr(colon + 1, slash - colon - 1);
  if (!absl::SimpleAtoi(port, &a.port) || a.port < 1 || a.port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat("--rendezvous redis:", absl::CHexEscape(text),
                                                   ": port \"", absl::CHexEscape(port),
                                                   "\" is not 1..65535; expected ", form));
  }
  if (a.run.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--rendezvous redis:", absl::CHexEscape(text),
                                                   ": no RUN after the port; expected ", form));
  }
  return a;
}

RedisRendezvous::RedisRendezvous(const RedisAddress& address, int rank, int world_size,
                                 std::unique_ptr<gloo::rendezvous::RedisStore> store)
    : Rendezvous(rank, world_size),
      where_(absl::StrCat("redis:", address.host, ":", address.port, "/", address.run)),
      prefix_(absl::StrCat("teplug/", address.run, "/")),
      store_(std::move(store)) {}

RedisRendezvous::~RedisRendezvous() = default;

absl::StatusOr<std::unique_ptr<RedisRendezvous>> RedisRendezvous::Open(const RedisAddress& address,
                                                                       int rank, int world_size) {
  const std::string where =
      absl::StrCat("redis:", address.host, ":", address.port, "/", address.run);
  if (world_size < 1 || rank < 0 || rank >= world_size) {
    return absl::InvalidArgumentError(
        absl::StrFormat("rendezvous %s: rank %d is not in 0..%d", where, rank, world_size - 1));
  }
  if (absl::Status s = Reachable(address.host, address.port); !s.ok()) {
    return absl::UnavailableError(
        absl::StrCat("rendezvous ", where, ": cannot reach the Redis server: ", s.message()));
  }
  std::unique_ptr<gloo::rendezvous::RedisStore> store;
  try {
    store = std::make_unique<gloo::rendezvous::RedisStore>(address.host, address.port);
  } catch (const gloo::IoException& e) {
    return absl::UnavailableError(
        absl::StrCat("rendezvous ", where, ": cannot reach the Redis server: ", e.what()));
  } catch (const gloo::EnforceNotMet& e) {
    return absl::UnavailableError(
        absl::StrCat("rendezvous ", where, ": cannot reach the Redis server: ", e.what()));
  }
  std::unique_ptr<RedisRendezvous> r(
      new RedisRendezvous(address, rank, world_size, std::move(store)));
  for (int other = 0; other < world_size; ++other) {
    absl::StatusOr<bool> finished = r->Exists(r->KeyOf(FinishedName(other)));
    if (!finished.ok()) return finished.status();
    if (*finished) {
      return absl::FailedPreconditionError(absl::StrCat(
          "rendezvous ", where, " holds a finished run (its keys would be read as this run's); ",
          "give each run a new RUN name"));
    }
  }
  absl::StatusOr<bool> arrived = r->SetOnce(r->KeyOf(ArrivalName(rank)), "1");
  if (!arrived.ok()) return arrived.status();
  if (!*arrived) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "rendezvous %s: rank %d already arrived (two processes were given rank %d, or RUN is "
        "not new)",
        where, rank, rank));
  }
  return r;
}

std::string RedisRendezvous::KeyOf(absl::string_view name) const {
  return absl::StrCat(prefix_, name);
}

absl::StatusOr<bool> RedisRendezvous::Exists(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  try {
    return store_->check({key});
  } catch (const gloo::IoException& e) {
    return absl::UnavailableError(absl::StrCat("rendezvous ", where_, ": ", e.what()));
  } catch (const gloo::EnforceNotMet& e) {
    return absl::UnavailableError(absl::StrCat("rendezvous ", where_, ": ", e.what()));
  }
}

absl::StatusOr<std::string> RedisRendezvous::Read(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  try {
    const std::vector<char> v = store_->get(key);  // present: the caller checked
    return std::string(v.begin(), v.end());
  } catch (const gloo::IoException& e) {
    return absl::UnavailableError(absl::StrCat("rendezvous ", where_, ": ", e.what()));
  } catch (const gloo::EnforceNotMet& e) {
    return absl::UnavailableError(absl::StrCat("rendezvous ", where_, ": ", e.what()));
  }
}

absl::StatusOr<bool> RedisRendezvous::SetOnce(const std::string& key, absl::string_view value) {
  absl::StatusOr<bool> there = Exists(key);
  if (!there.ok()) return there.status();
  if (*there) return false;
  std::lock_guard<std::mutex> lock(mu_);
  try {
    // RedisStore::set is SETNX and enforces that it set the key.
    store_->set(key, std::vector<char>(value.begin(), value.end()));
    return true;
  } catch (const gloo::IoException& e) {
    return absl::UnavailableError(absl::StrCat("rendezvous ", where_, ": ", e.what()));
  } catch (const gloo::EnforceNotMet& e) {
    // Set by another process since Exists: only two processes given one
    // rank (or a reused RUN) race like this.
    if (absl::StrContains(e.what(), "already set")) return false;
    return absl::UnavailableError(absl::StrCat("rendezvous ", where_, ": ", e.what()));
  }
}

absl::Status RedisRendezvous::Set(absl::string_view key, absl::string_view value) {
  absl::StatusOr<bool> set = SetOnce(KeyOf(absl::StrCat("k/", key)), value);
  if (!set.ok()) return set.status();
  if (!*set) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "rendezvous %s: key \"%s\" is already set (values are set once; is RUN new?)", where_,
        absl::CHexEscape(key)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<std::string>> RedisRendezvous::TryGet(absl::string_view key) const {
  const std::string full = KeyOf(absl::StrCat("k/", key));
  absl::StatusOr<bool> there = Exists(full);
  if (!there.ok()) return there.status();
  if (!*there) return std::nullopt;
  absl::StatusOr<std::string> value = Read(full);
  if (!value.ok()) return value.status();
  return *std::move(value);
}

absl::StatusOr<std::optional<std::string>> RedisRendezvous::AbortNote() const {
  for (int r = 0; r < world_size(); ++r) {
    const std::string note = KeyOf(AbortName(r));
    absl::StatusOr<bool> there = Exists(note);
    if (!there.ok()) return there.status();
    if (!*there) continue;
    absl::StatusOr<std::string> text = Read(note);
    if (!text.ok()) return text.status();
    return *std::move(text);
  }
  return std::nullopt;
}

std::vector<int> RedisRendezvous::MissingRanks() const {
  std::vector<int> missing;
  for (int r = 0; r < world_size(); ++r) {
    absl::StatusOr<bool> there = Exists(KeyOf(ArrivalName(r)));
    // An unreachable server cannot say: the rank counts as missing.
    if (!there.ok() || !*there) missing.push_back(r);
  }
  return missing;
}

void RedisRendezvous::Abort(absl::string_view note) {
  // Best effort, as the file store's (the caller reports the failure
  // itself); this rank's first note stays.
  (void)SetOnce(KeyOf(AbortName(rank())), note);
}

absl::Status RedisRendezvous::MarkFinished() {
  absl::StatusOr<bool> set = SetOnce(KeyOf(FinishedName(rank())), "1");
  return set.ok() ? absl::OkStatus() : set.status();  // already set: marked before
}

}  // namespace teplug::cli
