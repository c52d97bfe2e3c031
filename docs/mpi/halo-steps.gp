# docs/mpi/halo-steps.png: earth case 5 on 2 H200s against one process, by how the halo is
# swapped (results/h200-x2/2026-11-26-halo-steps, -halo-steps-2, -mapped-halo and -default-halo).  gnuplot halo-steps.gp
set terminal pngcairo size 860,480 font "DejaVu Sans,11"
set output "halo-steps.png"
set title "Earth, 2 GPUs vs 1 (2 x H200): fewer, deeper halo swaps; every run equal bit for bit"
set xlabel "steps per halo swap (0.25: before every stage)"
set ylabel "speed-up over one GPU"
set logscale x 2
set xrange [0.2:20]
set yrange [0:2.1]
set grid
set key right bottom
set arrow from 0.2, 1.6 to 20, 1.6 nohead dt 2 lc rgb "#1f77b4"
set arrow from 0.2, 1.8 to 20, 1.8 nohead dt 2 lc rgb "#d62728"
set label "level 8 target 1.6x" at 0.25, 1.65 tc rgb "#1f77b4"
set label "level 9 target 1.8x" at 0.25, 1.87 tc rgb "#d62728"
$first << EOD
0.25 0.62 1.00
1 0.84 1.13
2 0.81 1.18
4 1.05 1.30
8 1.11 1.43
EOD
$second << EOD
0.25 0.50 0.96
1 0.57 1.12
8 1.07 1.33
16 1.07 1.34
EOD
$third << EOD
0.25 0.62 1.20
1 0.74 1.44
8 1.14 1.60
EOD
$fourth << EOD
1 0.94 1.51
8 1.17 1.71
8 1.35 1.57
EOD
plot $first using 1:2 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "level 8 (655,362 cells), call 1", \
     $first using 1:3 with linespoints lw 2 pt 7 lc rgb "#d62728" title "level 9 (2,621,442 cells), call 1", \
     $second using 1:2 with points pt 6 ps 1.5 lc rgb "#1f77b4" title "level 8, call 2 (another machine)", \
     $second using 1:3 with points pt 6 ps 1.5 lc rgb "#d62728" title "level 9, call 2", \
     $third using 1:2 with points pt 5 ps 1.3 lc rgb "#1f77b4" title "level 8, call 3, mapped host copies", \
     $third using 1:3 with points pt 5 ps 1.3 lc rgb "#d62728" title "level 9, call 3, mapped host copies", \
     $fourth using 1:2 with points pt 9 ps 1.5 lc rgb "#1f77b4" title "level 8, call 4 (the default: 8)", \
     $fourth using 1:3 with points pt 9 ps 1.5 lc rgb "#d62728" title "level 9, call 4 (the default: 8)"
