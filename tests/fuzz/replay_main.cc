// A main for fuzz targets built without libFuzzer (the plain gcc build):
// runs every file of the seed corpus directories given as arguments through
// LLVMFuzzerTestOneInput, then a fixed number of deterministic
// pseudo-random inputs (seeds with random bytes changed, inserted, dropped
// or spliced, and plain random bytes). A violated check aborts, so
// `bazel test` reports the target failed with the check's message; the input
// that failed is printed first (as hex) so it can be saved into the corpus.
//
//   replay_main CORPUS_DIR_OR_FILE... [--random=N]
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// Present when a sanitizer runtime is linked (--config=asan, ...): a report
// ends the process without a signal, so the input is named from here.
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

namespace {

constexpr int kDefaultRandomInputs = 300;

// `dir` if it is a file, else every regular file under it (recursively),
// sorted for a stable order.
void ListFiles(const std::string& dir, std::vector<std::string>* out) {
  struct stat top;
  if (stat(dir.c_str(), &top) == 0 && S_ISREG(top.st_mode)) {
    out->push_back(dir);
    return;
  }
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) {
    std::fprintf(stderr, "replay: cannot open corpus directory %s: %s\n", dir.c_str(),
                 std::strerror(errno));
    std::exit(2);
  }
  std::vector<std::string> here;
  while (dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    here.push_back(dir + "/" + name);
  }
  closedir(d);
  std::sort(here.begin(), here.end());
  for (const std::string& path : here) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      ListFiles(path, out);
    } else if (S_ISREG(st.st_mode)) {
      out->push_back(path);
    }
  }
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The input currently running, printed if it aborts.
const std::string* g_current = nullptr;
const char* g_current_name = "";

void PrintCurrentInput() {
  if (g_current == nullptr) return;
  std::fprintf(stderr, "replay: the failing input is %s (%zu bytes):\n", g_current_name,
               g_current->size());
  for (unsigned char c : *g_current) std::fprintf(stderr, "%02x", c);
  std::fprintf(stderr, "\n");
}

// Not async-signal-safe, but the process is about to die anyway and the
// input is the one thing worth having.
void OnFatalSignal(int sig) {
  PrintCurrentInput();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void Run(const std::string& input, const char* name) {
  g_current = &input;
  g_current_name = name;
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  g_current = nullptr;
}

// A pseudo-random variation of `seed` (or of nothing).
std::string Mutate(const std::string& seed, const std::string& other, std::mt19937& rng) {
  std::string s = seed;
  auto below = [&rng](size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  const int edits = 1 + static_cast<int>(below(8));
  for (int i = 0; i < edits; ++i) {
    switch (below(5)) {
      case 0:  // overwrite a byte
        if (!s.empty()) s[below(s.size())] = static_cast<char>(below(256));
        break;
      case 1:  // insert a byte
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(below(s.size() + 1)), static_cast<char>(below(256)));
        break;
      case 2:  // drop a run
        if (!s.empty()) {
          const size_t at = below(s.size());
          s.erase(at, 1 + below(std::min<size_t>(16, s.size() - at)));
        }
        break;
      case 3:  // an interesting value
        if (!s.empty()) {
          static const unsigned char kValues[] = {0x00, 0x01, 0x7f, 0x80, 0xff, '\n', '"', '{', '\\'};
          s[below(s.size())] = static_cast<char>(kValues[below(sizeof kValues)]);
        }
        break;
      case 4:  // splice in part of another input
        if (!other.empty()) {
          const size_t from = below(other.size());
          s.insert(below(s.size() + 1), other.substr(from, 1 + below(64)));
        }
        break;
    }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int random_inputs = kDefaultRandomInputs;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--random=", 0) == 0) {
      random_inputs = std::atoi(arg.c_str() + std::strlen("--random="));
    } else {
      ListFiles(arg, &files);
    }
  }
  // A failed check aborts: name the input first, then die as before.
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, OnFatalSignal);
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(PrintCurrentInput);

  std::vector<std::string> seeds;
  for (const std::string& path : files) {
    seeds.push_back(ReadFile(path));
    Run(seeds.back(), path.c_str());
  }
  std::mt19937 rng(20261201);
  for (int i = 0; i < random_inputs; ++i) {
    std::string input;
    if (seeds.empty() || i % 10 == 9) {
      input.resize(std::uniform_int_distribution<size_t>(0, 512)(rng));
      for (char& c : input) c = static_cast<char>(rng());
    } else {
      const std::string& seed = seeds[i % seeds.size()];
      const std::string& other = seeds[(i * 7 + 3) % seeds.size()];
      input = Mutate(seed, other, rng);
    }
    const std::string name = "random input " + std::to_string(i);
    Run(input, name.c_str());
  }
  std::printf("replay: %zu corpus files and %d pseudo-random inputs passed\n", files.size(),
              random_inputs);
  return 0;
}
