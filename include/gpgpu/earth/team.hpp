// gpgpu/earth/team.hpp — the processes one model runs across, as the model sees them.
//
//   gpgpu::earth::Model model(ctx, grid, setup);                  // one process
//   gpgpu::earth::MpiTeam team(comm);                             // gpgpu/earth/mpi.hpp
//   gpgpu::earth::Model part(ctx, grid, setup, options, team);    // this rank's subdomain
//
// A Team of N processes splits the grid N ways (partition.hpp); each process's Model steps
// its own cells and swaps halos with its neighbours through the Team. gpgpu::earth itself
// knows no MPI: one_process() is the Team of a single process (what a Model without a Team
// uses), and gpgpu_earth_mpi (gpgpu/earth/mpi.hpp) implements the interface with gpgpu::mpi.
// Every call below is collective (all ranks make it, in the same order) except rank(),
// size() and halo()'s start/finish, which pair with the neighbours only.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpgpu/buffer.hpp"
#include "gpgpu/context.hpp"
#include "gpgpu/earth/grid.hpp"
#include "gpgpu/earth/partition.hpp"
#include "gpgpu/error.hpp"

namespace gpgpu::earth {

// An error every rank of a team throws at the same time with the same message (the ranks
// agreed on it first): no rank is left waiting for another, so an MPI job can end normally
// instead of aborting.
class TeamError : public Error {
 public:
  using Error::Error;
};

// The halo exchange of one subdomain's per-cell Buffers (vec4 of float32 per local cell):
// start() sends the own cells the neighbours need, finish() places the cells they sent into
// [owned, size()). Between the two the caller may queue work that needs no halo.
class Halo {
 public:
  virtual ~Halo() = default;
  virtual void start(const Buffer& values) = 0;  // sends the cells the neighbours need
  virtual void finish(Buffer& values) = 0;       // places the received cells
};

// The ranks a model runs across: what the model needs of MPI (earth/mpi.hpp makes one from
// a communicator; one_process() is the team of one).
class Team {
 public:
  virtual ~Team() = default;
  virtual int rank() const = 0;  // this rank, 0 .. size() - 1
  virtual int size() const = 0;  // the ranks
  // The device this rank's Context should use, given what the user asked for ("auto", an
  // index or a renderer word).
  virtual std::string device(const std::string& requested) = 0;
  // The grid on every rank, `build` run once (on rank 0) and the result shared.
  virtual Grid share_grid(const std::function<Grid()>& build) = 0;
  // Element-wise sums over the ranks, in place, on every rank.
  virtual void sum(std::span<double> values) = 0;
  // The non-empty `message` of the lowest rank that has one, on every rank ("" if none).
  virtual std::string first_message(const std::string& message) = 0;
  // Every rank's `part`, concatenated in rank order, on rank 0; empty on the others.
  virtual std::vector<float> gather(std::span<const float> part) = 0;
  // Every rank's `text`, in rank order, on rank 0; empty on the others.
  virtual std::vector<std::string> gather_text(const std::string& text) = 0;
  // The exchange for `domain` on `context` (the Buffers hold 4 floats per local cell).
  virtual std::unique_ptr<Halo> halo(const Context& context, const Subdomain& domain) = 0;
};

// The Team of this process alone: rank 0 of 1, every cell its own, no halo.
std::unique_ptr<Team> one_process();

// This process standing in for rank `rank` of `ranks`, alone: a Model on it holds that
// rank's cells and halo rings and runs that rank's dispatches, but never swaps the halo
// (the rings keep what they were set to: the first step, or the first halo_steps steps, give
// that rank's true values; later ones do not) and its collectives see only its own part.
// What it is for: timing one rank's share of the work on one device (`gpgpu earth bench
// --ranks`), the kernels a scaling model needs without the messages. Throws ArgumentError
// unless 0 <= rank < ranks.
std::unique_ptr<Team> rehearsal(int ranks, int rank);

}  // namespace gpgpu::earth
