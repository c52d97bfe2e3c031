// The Team of one process (see gpgpu/earth/team.hpp), alone or rehearsing one rank of a
// larger team: every collective is the identity, and no halo is ever swapped.
#include "gpgpu/earth/team.hpp"

#include <fmt/format.h>

namespace gpgpu::earth {

namespace {

class NoHalo final : public Halo {
 public:
  void start(const Buffer&) override {}
  void finish(Buffer&) override {}
};

class OneProcess final : public Team {
 public:
  OneProcess(int ranks, int rank) : ranks_(ranks), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return ranks_; }
  std::string device(const std::string& requested) override { return requested; }
  Grid share_grid(const std::function<Grid()>& build) override { return build(); }
  void sum(std::span<double>) override {}
  std::string first_message(const std::string& message) override { return message; }
  std::vector<float> gather(std::span<const float> part) override {
    return {part.begin(), part.end()};
  }
  std::vector<std::string> gather_text(const std::string& text) override { return {text}; }
  std::unique_ptr<Halo> halo(const Context&, const Subdomain&) override {
    return std::make_unique<NoHalo>();
  }

 private:
  int ranks_, rank_;
};

}  // namespace

std::unique_ptr<Team> one_process() {
  return std::make_unique<OneProcess>(1, 0);
}

std::unique_ptr<Team> rehearsal(int ranks, int rank) {
  if (ranks < 1 || rank < 0 || rank >= ranks) {
    throw ArgumentError(
        fmt::format("earth rehearsal: rank {} of {} ranks; give 0 <= rank < ranks", rank, ranks));
  }
  return std::make_unique<OneProcess>(ranks, rank);
}

}  // namespace gpgpu::earth
