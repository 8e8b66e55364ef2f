// ThreadSanitizer suppressions, linked into every binary of --config=tsan
// (the runtime finds this function in the executable, not in a shared
// library, so it cannot live beside the Gloo collective: the CLI and every
// host that loads libteplug_cpu.so need it too). gloo::AllreduceRing sends its "ready" notifications from, and
// receives them into, ONE int member (`dummy_`, a value nobody reads), so
// Gloo's event-loop thread (Pair::read -> recv) and the calling thread
// (Pair::write -> writev) touch it at once. That race is inside Debian's
// uninstrumented libgloo and harmless; only these two Gloo frames are
// suppressed, so a race in our code around them is still reported.
extern "C" const char* __tsan_default_suppressions() {
  return "race:gloo::transport::tcp::Pair::read\n"
         "race:gloo::transport::tcp::Pair::write\n";
}
