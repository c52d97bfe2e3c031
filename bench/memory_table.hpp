// bench/memory_table.hpp — the result table under its earlier name; it is the harness's Table.
#pragma once

#include "harness.hpp"

namespace gpgpu::bench {
using ResultTable = Table;
}  // namespace gpgpu::bench
