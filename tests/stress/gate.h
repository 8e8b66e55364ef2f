// The protocol between a test and the "gated" provider (gated_provider.cc):
// the test passes a std::atomic<int> holding kGateClosed as the GEMM
// workspace; the provider sets kGateEntered when the call is inside it and
// returns once the test sets kGateOpen, stamping kGatedMarker into D.
#ifndef TEPLUG_TESTS_STRESS_GATE_H_
#define TEPLUG_TESTS_STRESS_GATE_H_

namespace teplug::stress {

inline constexpr int kGateClosed = 0;
inline constexpr int kGateEntered = 1;
inline constexpr int kGateOpen = 2;
inline constexpr float kGatedMarker = 4.f;

}  // namespace teplug::stress

#endif  // TEPLUG_TESTS_STRESS_GATE_H_
