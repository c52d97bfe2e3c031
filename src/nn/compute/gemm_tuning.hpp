// Internal: the tilings GEMMs were tuned to, kept for later GEMMs and later processes, and
// the time a process may spend tuning.
//
// Autotuning one GEMM compiles and times up to 8 tilings; a network has a dozen or more
// GEMMs, and a second process (or the evaluation at another batch size) used to tune them
// all again. A tuned tiling is now kept in this process and in the disk cache (the
// "nn-gemm-tilings" store of gpgpu/cache.hpp), keyed by the device and driver, the GEMM's
// code (its load and store snippets, defines and operand layout) and its shape. Before
// tuning, a GEMM takes:
//   1. its own tiling, tuned before (in this process or an earlier one);
//   2. else a sibling's: the same code at a shape that differs in one of m, n, k (the same
//      layer at another batch size), whose blocks are refitted to its shape; a GEMM with 8
//      times its sibling's rows or more (far_larger) is still tuned while the budget lasts,
//      with the sibling's tiling among the candidates;
//   3. else it is tuned on its first run while the process's budget lasts
//      (BackendOptions::autotune_seconds); past it, the cost model's first choice runs and
//      the shape is left for a later process to tune.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gemm.hpp"

namespace gpgpu::nn::detail {

// What identifies one GEMM's tuning.
struct GemmIdentity {
  std::string device;  // cache::device_key
  std::string code;    // snippets, operand layout and kernel kind: the same for every batch
  std::string defines;
  GemmShape shape;
};

// Its tiling, tuned earlier (this process or the disk cache).
std::optional<GemmTiling> tuned_tiling(const GemmIdentity& id);
// The tiling tuned earlier for a sibling (the same code, one of m, n, k different), and
// (`tuned_at`) the shape it was tuned at (0 x 0 x 0 for entries older than that record).
std::optional<GemmTiling> sibling_tiling(const GemmIdentity& id, GemmShape* tuned_at = nullptr);
// Whether `shape` has at least 8 times the rows of the sibling `tuned_at` (a batch that much
// larger): a tiling chosen to fill the GPU with few rows leaves large ones on too-small
// blocks, so such a GEMM is tuned itself while the process's budget lasts (a smaller one
// takes its sibling's tiling: its run is short, and tuning it would only delay the start).
bool far_larger(GemmShape shape, GemmShape tuned_at);
// Keeps a tuned tiling for later GEMMs of this process and for later processes.
void remember_tiling(const GemmIdentity& id, const GemmTiling& tiling);

// The process's tuning budget. Most of a tuning's cost on a GPU is compiling its candidates
// (0.09-0.125 s a program on the H100's driver, which compiles one at a time), so what fits
// follows from the seconds a compile took on this device: measured by earlier tunings and
// kept on disk per device and driver; `assumed_compile_seconds` before the first.
// Returns how many of the first candidates to try, given the programs each compiles, so
// that the tuning ends inside what is left of `budget_seconds`; 0 when fewer than two fit
// (the cost model's choice then runs, and a later process tunes the GEMM).
// (0.25 s: the H100's driver took 0.09-0.35 s a program, the unrolled GEMMs the most.)
inline constexpr double assumed_compile_seconds = 0.25;
std::size_t candidates_within_budget(const std::string& device, double budget_seconds,
                                     const std::vector<std::size_t>& programs);
// What a tuning took: its wall seconds (spent from the budget) and the programs it compiled
// in `compile_seconds` (the estimate for later tunings, here and in later processes).
void spend_tuning_time(const std::string& device, double seconds, std::size_t compiled = 0,
                       double compile_seconds = 0);

// Timing the candidates. A GPU idles while a tuning compiles its candidates and clocks down;
// under the runs that follow it clocks up again, in steps, a few tenths of a second apart
// (an H200 went 345 -> 600 -> 1980 MHz). Candidates timed at different clocks are not
// comparable: timed one after the other, first runs kept tilings that trained 3-6% slower
// (docs/nn.md, "Autotuning: timing at one clock"); at one clock, every candidate's time
// scales alike (5.4-5.6x between 345 and 1980 MHz), so the order holds. So the GEMM first
// keeps the GPU busy for `tuning_warm_up_ns` (untimed runs), then times the candidates in
// rounds, each running every candidate once and the first again at its end: a round whose
// two timings of the first differ by more than 5% met a change of clock and is left out (up
// to 3 x `rounds` rounds are run for `rounds` steady ones; if none is steady, all count). A
// candidate's time is its fastest round (noise only adds). time(i) runs candidate i once and
// returns its GPU nanoseconds (< 0: no reading). Returns the timings by candidate, then round.
inline constexpr double tuning_warm_up_ns = 50e6;
inline constexpr int tuning_rounds = 5;
std::vector<std::vector<double>> time_in_rounds(std::size_t candidates, int rounds,
                                                const std::function<double(std::size_t)>& time);
// The candidate whose fastest round is the fastest of all; nothing when none has a reading.
std::optional<std::size_t> fastest_candidate(const std::vector<std::vector<double>>& timings);
// A candidate's fastest round (infinity when it has no reading).
double fastest_round(const std::vector<double>& timings);

// For tests: forgets the tilings this process holds and the time it spent (the disk cache
// keeps its entries), as a new process would start.
void forget_tunings_in_process();

}  // namespace gpgpu::nn::detail
