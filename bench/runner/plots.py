"""The report's PNG plots, drawn by gnuplot (Debian's gnuplot-nox, pngcairo terminal).

draw(rows, peak, out) takes the median rows of run_matrix.py and returns [(title, file name)].
"""

import os
import subprocess
import tempfile

HEADER = """set terminal pngcairo size 900,560 font "DejaVu Sans,11" noenhanced
set output '%s'
set title '%s'
set grid
set key outside right top
set datafile missing '?'
"""


# One colour per program, the same in every plot; the thread count is told by line and point style.
PROGRAM_COLOURS = ["#9400d3", "#009e73", "#56b4e9", "#e69f00", "#d55e00", "#0072b2", "#000000", "#999999"]


def series_name(row, many_threads):
    # A run of one thread count names it unless it is one thread.
    if not many_threads and row["threads"] == 1:
        return row["program"]
    return "%s (%d thread%s)" % (row["program"], row["threads"], "" if row["threads"] == 1 else "s")


def gnuplot(script, tmp):
    path = os.path.join(tmp, "plot.gp")
    with open(path, "w") as f:
        f.write(script)
    subprocess.run(["gnuplot", path], check=True)


def line_plot(rows, x_key, x_label, out, name, title, tmp):
    """Throughput against `x_key`, one line per program (and thread count)."""
    many = len({r["threads"] for r in rows}) > 1
    series = {}
    for r in sorted(rows, key=lambda r: r[x_key]):
        series.setdefault(series_name(r, many), []).append(r)
    if len({r[x_key] for r in rows}) < 2:
        return None
    programs = sorted({r["program"] for r in rows})
    plots = []
    for i, (label, rs) in enumerate(sorted(series.items())):
        dat = os.path.join(tmp, "s%d.dat" % i)
        with open(dat, "w") as f:
            for r in rs:
                f.write("%g %g\n" % (r[x_key], r["items_per_s"]))
        colour = PROGRAM_COLOURS[programs.index(rs[0]["program"]) % len(PROGRAM_COLOURS)]
        style = "dt 1 pt 7" if rs[0]["threads"] == 1 else "dt 2 pt 4"
        plots.append("'%s' using 1:2 with linespoints lw 2 %s lc rgb '%s' title '%s'" % (dat, style, colour, label))
    unit = rows[0]["unit"]
    xs = sorted({r[x_key] for r in rows})
    png = os.path.join(out, name)
    gnuplot(HEADER % (png, title) +
            "set logscale x 2\nset logscale y\nset xlabel '%s'\nset ylabel 'training throughput (%s/s, log scale)'\n"
            "set xrange [%g:%g]\nset xtics (%s)\nplot %s\n" % (
                x_label, unit, xs[0] / 1.4, xs[-1] * 1.4, ", ".join("%d" % x for x in xs), ", ".join(plots)), tmp)
    return name


def construction_plot(rows, out, tmp):
    """Graph construction per step and its share of the step against graph size (dybatch)."""
    rows = [r for r in rows if r["program"].startswith("dybatch") and r["nodes_per_graph"] > 0 and r["threads"] == 1]
    if not rows:
        return None
    tasks = sorted({r["task"] for r in rows})
    dats = []
    for i, task in enumerate(tasks):
        dat = os.path.join(tmp, "c%d.dat" % i)
        with open(dat, "w") as f:
            for r in sorted((r for r in rows if r["task"] == task), key=lambda r: r["nodes_per_graph"]):
                f.write("%g %g %g\n" % (r["nodes_per_graph"], r["build_ms"], 100 * r["build_share"]))
        dats.append((dat, task))
    png = os.path.join(out, "construction.png")
    left = ", ".join("'%s' using 1:2 with points pt %d ps 1.4 lw 2 title '%s'" % (d, 4 + 2 * i, t)
                     for i, (d, t) in enumerate(dats))
    right = ", ".join("'%s' using 1:3 with points pt %d ps 1.4 lw 2 title '%s'" % (d, 4 + 2 * i, t)
                      for i, (d, t) in enumerate(dats))
    gnuplot(HEADER.replace("size 900,560", "size 1200,600") % (png, "") +
            "set multiplot layout 1,2 title 'dybatch graph construction against graph size (every engine, one thread)'\n"
            "set logscale x\nset xlabel 'nodes per graph (log scale)'\nset key outside below horizontal\nset bmargin 8\n"
            "set logscale y\nset ylabel 'construction time per step (ms, log scale)'\n"
            "set title 'construction time'\nplot %s\n"
            "unset logscale y\nset yrange [0:*]\nset ylabel 'construction share of a training step (%%)'\n"
            "set title 'share of the step'\nplot %s\nunset multiplot\n" % (left, right), tmp)
    return "construction.png"


def peak_plot(rows, peak, out, tmp):
    """Achieved GFLOP/s as a share of the GEMM peak: the best dybatch and the best libtorch program.

    Horizontal bars, one row per configuration: with a hundred configurations only a row can carry
    a readable label."""
    configs = {}
    for r in rows:
        key = (r["task"], r["batch"], r["hidden"], r["threads"])
        side = "torch" if r["program"].startswith("torch") else "dybatch"
        best = configs.setdefault(key, {})
        best[side] = max(best.get(side, 0.0), 100 * r["peak_share"])
    if not configs:
        return None
    dat = os.path.join(tmp, "peak.dat")
    ordered = sorted(configs.items(), reverse=True)
    with open(dat, "w") as f:
        for y, ((task, batch, hidden, threads), best) in enumerate(ordered):
            label = "%s  b=%d h=%d t=%d" % (task, batch, hidden, threads)
            f.write('%d "%s" %s %s\n' % (y, label, "%g" % best["dybatch"] if "dybatch" in best else "?",
                                          "%g" % best["torch"] if "torch" in best else "?"))
    png = os.path.join(out, "gemm-share.png")
    height = 16 * len(ordered) + 160
    gnuplot(HEADER.replace("size 900,560", "size 1000,%d" % height) % (
        png, "Achieved GFLOP/s as a share of the GEMM peak of this run (%.0f GFLOP/s a thread)" % peak) +
            "set style fill solid 0.8 border -1\nunset grid\nset grid xtics\nset yrange [-1:%d]\n"
            "set xrange [0:*]\nset xlabel 'share of the GEMM peak times the threads (%%)'\n"
            "set ytics scale 0 font ',9'\nset key outside top center horizontal\nset lmargin 30\n"
            "plot '%s' using 3:($1+0.2):(0):3:($1):($1+0.4):ytic(2) with boxxyerror lc rgb '#7e2fd0'"
            " title 'dybatch (best engine)',"
            " '' using 4:($1-0.2):(0):4:($1-0.4):($1) with boxxyerror lc rgb '#2a9d78'"
            " title 'libtorch (best version)'\n" % (len(ordered), dat), tmp)
    return "gemm-share.png"


def draw(rows, peak, out):
    # The plots compare the programs of the suite's own settings (SGD), not DyNet's (Adam).
    rows = [r for r in rows if r["updates"] == "sgd"]
    figures = []
    with tempfile.TemporaryDirectory() as tmp:
        for task in sorted({r["task"] for r in rows}):
            rs = [r for r in rows if r["task"] == task]
            by_batch = [r for r in rs if r["sweep"] != "hidden"]
            name = line_plot(by_batch, "batch", "examples per graph / minibatch (log scale)", out,
                             "throughput-%s-batch.png" % task,
                             "%s: throughput against minibatch size (hidden %d)" % (task, by_batch[0]["hidden"])
                             if by_batch else "", tmp) if by_batch else None
            if name:
                figures.append(("%s: throughput against minibatch size" % task, name))
            by_hidden = [r for r in rs if r["batch"] == 64 and r["sweep"] != "dynet"]
            name = line_plot(by_hidden, "hidden", "hidden size (log scale)", out, "throughput-%s-hidden.png" % task,
                             "%s: throughput against hidden size (64 a minibatch)" % task, tmp) if by_hidden else None
            if name:
                figures.append(("%s: throughput against hidden size" % task, name))
        name = construction_plot(rows, out, tmp)
        if name:
            figures.append(("Graph construction against graph size", name))
        name = peak_plot(rows, peak, out, tmp)
        if name:
            figures.append(("Achieved GFLOP/s against the GEMM peak", name))
    return figures
