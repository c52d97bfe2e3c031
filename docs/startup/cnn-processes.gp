# docs/startup/cnn-processes.png: where `gpgpu train --net cnn --epochs 1` spends its wall time,
# process after process in one fresh cache folder (H100, 2026-11-26; the `time:` lines and
# GPGPU_CLI_TIMING of results/h100/2026-11-26-converged/phases.txt).  gnuplot cnn-processes.gp
set terminal pngcairo size 900,520 font "DejaVu Sans,11"
set output "cnn-processes.png"
set title "gpgpu train --net cnn --epochs 1 on an H100: wall seconds per process, one cache folder"
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.6
set ylabel "seconds"
set yrange [0:7]
set key outside right top vertical
set grid ytics
set arrow from graph 0, first 2.18 to graph 1, first 2.18 nohead dt 2 lw 2 lc rgb "#c00000"
set label "- - warm-run target 2.18 s (steady + 1.5 s)" at graph 0.38, first 6.6 tc rgb "#c00000"
$data << EOD
process "context" "data read" "model, upload, kernels" "epoch and evaluation" "saving, clean-up" "process start and end"
"1st (empty cache)" 0.317 0.394 2.150 3.053 0.029 0.434
"2nd" 0.162 0.460 0.283 2.133 0.019 0.326
"3rd" 0.160 0.332 0.189 2.153 0.019 0.370
"5th and later" 0.159 0.332 0.191 0.702 0.019 0.217
EOD
plot for [c=2:7] $data using c:xtic(1) title columnheader(c)
