// The main of the tests that run under mpirun, and their shared helpers.
#include "mpi_test_support.hpp"

#include <cstdio>

#include <gtest/gtest.h>

#include "gpgpu/mpi/collectives.hpp"
#include "test_support.hpp"

namespace gpgpu::test {

mpi::Communicator& world() {
  static mpi::Communicator w;
  return w;
}

std::uint32_t shared_seed() {
  std::vector<std::uint32_t> s{seed() ^ static_cast<std::uint32_t>(rng()())};
  mpi::broadcast(world(), s, 0);
  return s.at(0);
}

std::vector<float> floats_of(std::uint32_t seed, int stream, std::size_t n) {
  std::mt19937 g(seed + 7919u * static_cast<std::uint32_t>(stream));
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(g);
  return v;
}

}  // namespace gpgpu::test

namespace {

// On ranks other than 0: each failure, with the rank that saw it.
class RankFailures : public testing::EmptyTestEventListener {
 public:
  explicit RankFailures(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "rank %d: %s:%d: failure\n%s\n", rank_,
                 r.file_name() != nullptr ? r.file_name() : "?", r.line_number(), r.message());
  }

 private:
  int rank_;
};

}  // namespace

// Every rank runs every test; rank 0 alone prints the results (each rank's failures still
// print, with its rank, through the failure listener below), and mpirun's exit code is
// non-zero when any rank failed.
int main(int argc, char** argv) {
  gpgpu::mpi::Session session(argc, argv);
  testing::InitGoogleTest(&argc, argv);
  const int rank = gpgpu::test::world().rank();
  if (rank != 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailures(rank));
  }
  return RUN_ALL_TESTS();
}
