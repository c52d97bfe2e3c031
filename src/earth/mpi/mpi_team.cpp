// MpiTeam: gpgpu::earth's Team over gpgpu::mpi (see gpgpu/earth/mpi.hpp).
#include <exception>

#include "gpgpu/earth/mpi.hpp"
#include "gpgpu/mpi/collectives.hpp"
#include "gpgpu/mpi/device.hpp"
#include "gpgpu/mpi/halo_exchange.hpp"

namespace gpgpu::earth {

namespace {

std::vector<std::uint32_t> unsigned_cells(const std::vector<std::int32_t>& cells) {
  return {cells.begin(), cells.end()};
}

class MpiHalo final : public Halo {
 public:
  MpiHalo(const mpi::Communicator& comm, const Context& context, const Subdomain& domain)
      : exchange_(comm, context, ElementType::Float32, 4, domain.size(), links_of(domain)) {}
  void start(const Buffer& values) override { exchange_.start(values); }
  void finish(Buffer& values) override { exchange_.finish(values); }

 private:
  static std::vector<mpi::HaloLink> links_of(const Subdomain& domain) {
    std::vector<mpi::HaloLink> links;
    for (const SubdomainLink& l : domain.links)
      links.push_back({l.rank, unsigned_cells(l.send), unsigned_cells(l.receive)});
    return links;
  }
  mpi::HaloExchange exchange_;
};

}  // namespace

MpiTeam::MpiTeam(const mpi::Communicator& comm) : comm_(&comm) {}

int MpiTeam::rank() const {
  return comm_->rank();
}
int MpiTeam::size() const {
  return comm_->size();
}

std::string MpiTeam::device(const std::string& requested) {
  return mpi::device_for_rank(*comm_, requested);
}

Grid MpiTeam::share_grid(const std::function<Grid()>& build) {
  Grid grid;
  std::string error;
  if (comm_->rank() == 0) {
    try {
      grid = build();
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  comm_->agree(error);
  broadcast_grid(*comm_, grid, 0);
  return grid;
}

void MpiTeam::sum(std::span<double> values) {
  mpi::allreduce(*comm_, values, mpi::Reduction::Sum);
}

std::string MpiTeam::first_message(const std::string& message) {
  return comm_->first_message(message);
}

std::vector<float> MpiTeam::gather(std::span<const float> part) {
  return mpi::gather(*comm_, part, 0);
}

std::vector<std::string> MpiTeam::gather_text(const std::string& text) {
  return mpi::gather(*comm_, text, 0);
}

std::unique_ptr<Halo> MpiTeam::halo(const Context& context, const Subdomain& domain) {
  return std::make_unique<MpiHalo>(*comm_, context, domain);
}

}  // namespace gpgpu::earth
