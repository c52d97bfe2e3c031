// gpgpu/earth.hpp — gpgpu::earth: a geodesic icosahedral grid and a shallow-water model on
// it, run as gpgpu compute kernels and checked against Williamson et al.'s (1992) standard
// test cases. One include for all of it:
//
//   #include <gpgpu/earth.hpp>
//   gpgpu::Context ctx;
//   auto grid = gpgpu::earth::build_grid({.level = 6});              // grid.hpp
//   auto setup = gpgpu::earth::make_case(2);                           // cases.hpp
//   gpgpu::earth::Model model(ctx, grid, setup);                       // model.hpp
//   model.run(setup.days * 86400);
//   auto errors = gpgpu::earth::height_errors(grid, model.fields().height,
//                     gpgpu::earth::analytic_height(grid, setup, model.time()));  //
//                     diagnostics.hpp
//   gpgpu::earth::MapProjector map(grid, 1024, 512);                   // render.hpp
//   gpgpu::earth::write_map_png("h.png", map, model.fields().height,
//       gpgpu::earth::style_for(model.fields().height, "HEIGHT", "M",
//       gpgpu::earth::Palette::Height));
//
// Link gpgpu::earth (CMake). docs/earth.md has the method, the results and the pictures.
#pragma once

#include "gpgpu/earth/cases.hpp"
#include "gpgpu/earth/diagnostics.hpp"
#include "gpgpu/earth/grid.hpp"
#include "gpgpu/earth/model.hpp"
#include "gpgpu/earth/operators.hpp"
#include "gpgpu/earth/options.hpp"
#include "gpgpu/earth/partition.hpp"
#include "gpgpu/earth/reference.hpp"
#include "gpgpu/earth/render.hpp"
#include "gpgpu/earth/team.hpp"
#include "gpgpu/earth/vec3.hpp"
