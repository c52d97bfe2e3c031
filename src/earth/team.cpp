// The Team of one process (see gpgpu/earth/team.hpp): every collective is the identity.
#include "gpgpu/earth/team.hpp"

namespace gpgpu::earth {

namespace {

class NoHalo final : public Halo {
 public:
  void start(const Buffer&) override {}
  void finish(Buffer&) override {}
};

class OneProcess final : public Team {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
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
};

}  // namespace

std::unique_ptr<Team> one_process() {
  return std::make_unique<OneProcess>();
}

}  // namespace gpgpu::earth
