"""What the timeline pictures of this folder share: phases as horizontal bars in a gnuplot
script (the data inline), then gnuplot run on it."""
import os
import subprocess


def draw(folder, name, settings, bars, legend, height=0.3):
    """Writes <name>.gp in `folder` and runs gnuplot on it.
    settings: gnuplot lines before the data (terminal, output, title, axes);
    bars: (row, start, end, colour index); legend: {colour index: (title, rgb)}."""
    lines = list(settings) + ["$bars << EOD"]
    for row, x0, x1, c in bars:
        lines.append(f"{(x0 + x1) / 2:.1f} {row:.2f} {(x1 - x0) / 2:.1f} {height} {c}")
    lines.append("EOD")
    plots = [f"$bars using 1:($5=={c}?$2:1/0):3:4 with boxxyerror lc rgb \"{rgb}\" "
             f"title \"{title}\"" for c, (title, rgb) in legend.items()]
    lines.append("plot " + ", \\\n     ".join(plots))
    with open(os.path.join(folder, name + ".gp"), "w") as f:
        f.write("\n".join(lines) + "\n")
    subprocess.run(["gnuplot", name + ".gp"], cwd=folder, check=True)
