set terminal pngcairo size 1100,700 noenhanced font 'DejaVu Sans,11'
set logscale xy
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
set key outside right top
set xlabel 'matrix size n (n x n times n x n)'
set ylabel 'GFLOPS'
set format y '%g'
set output 'matmul_gflops.png'
set title "matmul kernel GFLOPS (data on the device) — NVIDIA H100 80GB HBM3 (OpenGL ES 3.2 NVIDIA 580.159.04) — 2026-11-22"
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
     'matmul_chart.dat' index 11 using 1:2 with linespoints lw 2 dt 2 lc rgb '#aec7e8' pt 12 title "cpu_openblas", \
     'matmul_chart.dat' index 12 using 1:2 with linespoints lw 2 dt 2 lc rgb '#ffbb78' pt 13 title "cuda_cublas", \
     'matmul_chart.dat' index 13 using 1:2 with linespoints lw 2 dt 2 lc rgb '#98df8a' pt 14 title "cuda_naive", \
     'matmul_chart.dat' index 14 using 1:2 with linespoints lw 2 dt 2 lc rgb '#ff9896' pt 15 title "cuda_tiled"
set output 'matmul_gflops_end_to_end.png'
set title "matmul end-to-end GFLOPS (upload + kernel + download) — NVIDIA H100 80GB HBM3 (OpenGL ES 3.2 NVIDIA 580.159.04) — 2026-11-22"
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
     'matmul_chart.dat' index 11 using 1:3 with linespoints lw 2 dt 2 lc rgb '#aec7e8' pt 12 title "cpu_openblas", \
     'matmul_chart.dat' index 12 using 1:3 with linespoints lw 2 dt 2 lc rgb '#ffbb78' pt 13 title "cuda_cublas", \
     'matmul_chart.dat' index 13 using 1:3 with linespoints lw 2 dt 2 lc rgb '#98df8a' pt 14 title "cuda_naive", \
     'matmul_chart.dat' index 14 using 1:3 with linespoints lw 2 dt 2 lc rgb '#ff9896' pt 15 title "cuda_tiled"
