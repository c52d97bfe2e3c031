# docs/scale/strong-scaling.png: the speed-ups scripts/scale-model.py predicts (2026-11-26,
# calibrated on results/h200-x2/2026-11-26-halo-flush-2 and, for the transfer costs and the
# CNN, -halo-flush), and the 2-GPU medians measured in those two calls.
#   cd docs/scale && gnuplot strong-scaling.gp
set terminal pngcairo size 860,520 font "DejaVu Sans,11"
set output "strong-scaling.png"
set title "Strong scaling predicted from one GPU and measured transfer costs (H200 nodes)"
set xlabel "GPUs (8 a node; more: InfiniBand NDR)"
set ylabel "speed-up over one GPU"
set logscale xy 2
set xrange [0.8:700]
set yrange [0.7:64]
set grid
set key left top
$model << EOD
# GPUs earth8 earth9 earth10 earth11 cnn
1 1.000 1.000 1.000 1.000 1.000
2 1.37 1.93 1.89 1.95 1.66
8 2.72 5.08 6.11 7.13 3.22
64 1.80 5.63 16.57 31.85 2.35
512 1.36 4.87 16.78 54.24 2.31
EOD
$measured << EOD
# GPUs earth8 earth9 cnn (medians of the one-process / 2-rank pairs)
2 1.27 1.88 1.64
EOD
plot $model using 1:2 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "earth level 8 (model)", \
     $model using 1:3 with linespoints lw 2 pt 7 lc rgb "#d62728" title "earth level 9 (model)", \
     $model using 1:4 with linespoints lw 2 pt 7 lc rgb "#2ca02c" title "earth level 10 (model)", \
     $model using 1:5 with linespoints lw 2 pt 7 lc rgb "#9467bd" title "earth level 11 (model)", \
     $model using 1:6 with linespoints lw 2 dt 2 pt 5 lc rgb "#ff7f0e" title "CNN, global batch 512 (model)", \
     $measured using 1:2 with points pt 9 ps 2 lc rgb "#1f77b4" title "measured, 2 x H200", \
     $measured using 1:3 with points pt 9 ps 2 lc rgb "#d62728" notitle, \
     $measured using 1:4 with points pt 9 ps 2 lc rgb "#ff7f0e" notitle, \
     x with lines dt 3 lc rgb "#888888" title "ideal"
