// `gpgpu train`, shared with gpgpu-mpi: the same command on one process or across MPI
// ranks (data-parallel: each rank its shard of every global batch).
#pragma once

#include <functional>
#include <memory>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "gpgpu/nn/team.hpp"

namespace gpgpu::cli {

// The processes a run of `gpgpu train` spans: gpgpu's add_train_command(app) gives one
// process (gpgpu::nn::one_process); gpgpu-mpi gives the MPI ranks.
using TrainTeamMaker = std::function<std::unique_ptr<gpgpu::nn::Team>()>;
Command add_train_command(CLI::App& app, TrainTeamMaker make_team);

}  // namespace gpgpu::cli
