# Made by the gpgpu matmul benchmark; run `gnuplot matmul_chart.gp` here to redraw.
set terminal pngcairo size 1100,700 noenhanced font 'DejaVu Sans,11'
set datafile separator whitespace
set logscale xy
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
set key outside right top
set xlabel 'matrix size n (n x n times n x n)'
set xrange [7.2:1126.4]
set output 'matmul_gflops.png'
set title "matmul kernel GFLOPS (data on the device) — llvmpipe (LLVM 15.0.6, 256 bits) — 2026-11-22"
set ylabel 'GFLOPS'
set format y '%g'
plot 'matmul_chart.dat' index 0 using 1:2 with linespoints lw 2 dt 1 lc rgb '#1f77b4' pt 1 title "compute_naive", \
     'matmul_chart.dat' index 1 using 1:2 with linespoints lw 2 dt 1 lc rgb '#ff7f0e' pt 2 title "compute_tiled", \
     'matmul_chart.dat' index 2 using 1:2 with linespoints lw 2 dt 1 lc rgb '#2ca02c' pt 3 title "compute_register_blocked", \
     'matmul_chart.dat' index 3 using 1:2 with linespoints lw 2 dt 1 lc rgb '#d62728' pt 4 title "transform_feedback_texture", \
     'matmul_chart.dat' index 4 using 1:2 with linespoints lw 2 dt 1 lc rgb '#9467bd' pt 5 title "transform_feedback_vec4", \
     'matmul_chart.dat' index 5 using 1:2 with linespoints lw 2 dt 1 lc rgb '#8c564b' pt 6 title "transform_feedback_blocked", \
     'matmul_chart.dat' index 6 using 1:2 with linespoints lw 2 dt 1 lc rgb '#e377c2' pt 7 title "fragment_naive", \
     'matmul_chart.dat' index 7 using 1:2 with linespoints lw 2 dt 1 lc rgb '#7f7f7f' pt 8 title "fragment_packed", \
     'matmul_chart.dat' index 8 using 1:2 with linespoints lw 2 dt 2 lc rgb '#bcbd22' pt 9 title "cpu_naive", \
     'matmul_chart.dat' index 9 using 1:2 with linespoints lw 2 dt 2 lc rgb '#17becf' pt 10 title "cpu_openmp", \
     'matmul_chart.dat' index 10 using 1:2 with linespoints lw 2 dt 2 lc rgb '#000000' pt 11 title "cpu_openmp_transposed", \
     'matmul_chart.dat' index 11 using 1:2 with linespoints lw 2 dt 2 lc rgb '#aec7e8' pt 12 title "cpu_openblas"
set output 'matmul_gflops_end_to_end.png'
set title "matmul end-to-end GFLOPS (upload + kernel + download) — llvmpipe (LLVM 15.0.6, 256 bits) — 2026-11-22"
set ylabel 'GFLOPS'
set format y '%g'
plot 'matmul_chart.dat' index 0 using 1:3 with linespoints lw 2 dt 1 lc rgb '#1f77b4' pt 1 title "compute_naive", \
     'matmul_chart.dat' index 1 using 1:3 with linespoints lw 2 dt 1 lc rgb '#ff7f0e' pt 2 title "compute_tiled", \
     'matmul_chart.dat' index 2 using 1:3 with linespoints lw 2 dt 1 lc rgb '#2ca02c' pt 3 title "compute_register_blocked", \
     'matmul_chart.dat' index 3 using 1:3 with linespoints lw 2 dt 1 lc rgb '#d62728' pt 4 title "transform_feedback_texture", \
     'matmul_chart.dat' index 4 using 1:3 with linespoints lw 2 dt 1 lc rgb '#9467bd' pt 5 title "transform_feedback_vec4", \
     'matmul_chart.dat' index 5 using 1:3 with linespoints lw 2 dt 1 lc rgb '#8c564b' pt 6 title "transform_feedback_blocked", \
     'matmul_chart.dat' index 6 using 1:3 with linespoints lw 2 dt 1 lc rgb '#e377c2' pt 7 title "fragment_naive", \
     'matmul_chart.dat' index 7 using 1:3 with linespoints lw 2 dt 1 lc rgb '#7f7f7f' pt 8 title "fragment_packed", \
     'matmul_chart.dat' index 8 using 1:3 with linespoints lw 2 dt 2 lc rgb '#bcbd22' pt 9 title "cpu_naive", \
     'matmul_chart.dat' index 9 using 1:3 with linespoints lw 2 dt 2 lc rgb '#17becf' pt 10 title "cpu_openmp", \
     'matmul_chart.dat' index 10 using 1:3 with linespoints lw 2 dt 2 lc rgb '#000000' pt 11 title "cpu_openmp_transposed", \
     'matmul_chart.dat' index 11 using 1:3 with linespoints lw 2 dt 2 lc rgb '#aec7e8' pt 12 title "cpu_openblas"
set output 'matmul_precision.png'
set title "matmul max |c - c64| / max |c64| — llvmpipe (LLVM 15.0.6, 256 bits) — 2026-11-22"
set ylabel 'relative error'
set format y '%.0e'
plot 'matmul_chart.dat' index 0 using 1:4 with linespoints lw 2 dt 1 lc rgb '#1f77b4' pt 1 title "compute_naive", \
     'matmul_chart.dat' index 1 using 1:4 with linespoints lw 2 dt 1 lc rgb '#ff7f0e' pt 2 title "compute_tiled", \
     'matmul_chart.dat' index 2 using 1:4 with linespoints lw 2 dt 1 lc rgb '#2ca02c' pt 3 title "compute_register_blocked", \
     'matmul_chart.dat' index 3 using 1:4 with linespoints lw 2 dt 1 lc rgb '#d62728' pt 4 title "transform_feedback_texture", \
     'matmul_chart.dat' index 4 using 1:4 with linespoints lw 2 dt 1 lc rgb '#9467bd' pt 5 title "transform_feedback_vec4", \
     'matmul_chart.dat' index 5 using 1:4 with linespoints lw 2 dt 1 lc rgb '#8c564b' pt 6 title "transform_feedback_blocked", \
     'matmul_chart.dat' index 6 using 1:4 with linespoints lw 2 dt 1 lc rgb '#e377c2' pt 7 title "fragment_naive", \
     'matmul_chart.dat' index 7 using 1:4 with linespoints lw 2 dt 1 lc rgb '#7f7f7f' pt 8 title "fragment_packed", \
     'matmul_chart.dat' index 8 using 1:4 with linespoints lw 2 dt 2 lc rgb '#bcbd22' pt 9 title "cpu_naive", \
     'matmul_chart.dat' index 9 using 1:4 with linespoints lw 2 dt 2 lc rgb '#17becf' pt 10 title "cpu_openmp", \
     'matmul_chart.dat' index 10 using 1:4 with linespoints lw 2 dt 2 lc rgb '#000000' pt 11 title "cpu_openmp_transposed", \
     'matmul_chart.dat' index 11 using 1:4 with linespoints lw 2 dt 2 lc rgb '#aec7e8' pt 12 title "cpu_openblas"
