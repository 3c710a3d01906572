"""The markdown report of one scripts/bench run (report.md next to its CSV files and plots)."""

# DyNet 2.1 on this kind of machine, one thread, dense updates (../shared/BENCHMARKS.md):
# (task, minibatch) -> (no autobatching, autobatching).
DYNET = {("treenn", 1): (455, 429), ("treenn", 64): (1525, 2818), ("bilstm-tagger", 1): (8605, 8333),
         ("bilstm-tagger", 64): (40623, 57038), ("bilstm-tagger-withchar", 1): (7177, 6455),
         ("rnnlm-batch", 64): (5824, 5889), ("rnnlm-batch", 16): (4060, 3960), ("rnnlm-batch", 4): (1644, 1677),
         ("rnnlm-batch", 1): (1200, 1140)}


DYNET_TASKS = ("treenn", "bilstm-tagger", "bilstm-tagger-withchar", "rnnlm-batch")
# DyNet 2.1 running its benchmark programs (Adam) on this kind of machine, one thread, with sparse
# updates (BENCHMARKS.md): (task, minibatch) -> (no autobatching, autobatching). Its dense figures
# are DYNET's.
DYNET_SPARSE = {("treenn", 1): (1621, 1817), ("bilstm-tagger", 1): (54428, 45112),
                ("bilstm-tagger-withchar", 1): (29149, 25315)}


def best(rows, prefix):
    rows = [r for r in rows if r["program"].startswith(prefix)]
    return max(rows, key=lambda r: r["items_per_s"]) if rows else None


def config_key(r):
    return (r["task"], r["batch"], r["hidden"], r["threads"], r["updates"])


def grouped(rows):
    groups = {}
    for r in rows:
        groups.setdefault(config_key(r), []).append(r)
    return sorted(groups.items())


def write_dynet_settings(L, rows):
    """The table of DyNet's benchmark programs' settings, with the phases of a step."""
    rs = sorted((r for r in rows if r["updates"] != "sgd" and r["threads"] == 1),
                key=lambda r: (r["task"], r["updates"], r["program"]))
    if not rs:
        return
    L.append("## DyNet's benchmark settings, one thread: where a step goes")
    L.append("")
    L.append("As DyNet's benchmark programs train (Adam at 0.001, no clipping, SPARSE 1 or 0), one example a graph "
             "(rnnlm-batch: minibatches of 16), with each phase of a step timed by the program. DyNet's figures "
             "are BENCHMARKS.md's, from another day.")
    L.append("")
    L.append("| task (throughput/s) | per graph | updates | program | throughput | build | forward | backward | "
             "update | step | DyNet no autobatch / autobatch |")
    L.append("| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in rs:
        dynet = (DYNET_SPARSE if r["updates"] == "sparse" else DYNET).get((r["task"], r["batch"]))
        L.append("| %s (%s) | %d | %s | %s | %.0f | %.3f ms | %.3f ms | %.3f ms | %.3f ms | %.3f ms | %s |" %
                 (r["task"], r["unit"], r["batch"], r["updates"], r["program"].replace("dybatch-", ""),
                  r["items_per_s"], r["build_ms"], r["forward_ms"], r["backward_ms"], r["update_ms"], r["step_ms"],
                  "%d / %d" % dynet if dynet else ""))
    L.append("")


def write(path, rows, figures, targets, c):
    L = []
    L.append("# Benchmark run %s" % c["started"].strftime("%Y-%m-%d %H:%M UTC"))
    L.append("")
    L.append("- **Machine**: %s." % c["machine"])
    if c["note"]:
        L.append("- **State of the machine**: %s" % c["note"])
    L.append("- Load average at the end: %.1f/%.1f/%.1f; the run took %.1f minutes (%s to %s UTC)." %
             (*c["load_end"], (c["finished"] - c["started"]).total_seconds() / 60, c["started"].strftime("%H:%M"),
              c["finished"].strftime("%H:%M")))
    L.append("- Commit %s; `%s`; %s matrix, %.1f s a run, median of %d runs per figure, programs of a "
             "configuration interleaved (A, B, C, A, B, C ...), each pinned with taskset. The vertex executor flag "
             "(`--dynet-vertex`) was %s." % (c["commit"], c["command"], "full" if c["full"] else "quick", c["seconds"],
                                             c["reps"], "passed" if c["vertex"] else "not accepted by this build, so not run"))
    L.append("- GEMM peak measured in this run, before every configuration (dybatch's single-precision GEMM, best "
             "of n = 128..512, one thread): median **%.1f GFLOP/s** of %d measurements, %.1f to %.1f. Shares of the "
             "peak below are against the median times the threads." %
             (c["peak"], len(c["peaks"]), min(c["peaks"]), max(c["peaks"])))
    L.append("- Every model trains with plain SGD (learning rate 0.1) and sparse embedding updates on both sides, "
             "except the seq2seq encoder-decoder, which trains with Adam (default learning rate), and DyNet's "
             "benchmark settings below, which train with Adam as DyNet's programs do; libtorch is "
             "PyTorch 1.13 (Debian's libtorch-dev) with `at::set_num_threads` set to the same threads.")
    # Runs written before the allocator was recorded ran on glibc's malloc.
    allocator = c.get("allocator")
    L.append("- Memory allocator of every program: %s." %
             ("TCMalloc (`%s` preloaded), as PyTorch's CPU performance guide advises" % allocator if allocator else
              "glibc's malloc (no TCMalloc), under which libtorch faults its large tensors in again at "
              "every step"))
    L.append("")

    L.append("## dybatch against libtorch, same threads")
    L.append("")
    L.append("Best dybatch engine against the best libtorch version (`torch-batched`: packed `torch::nn::LSTM` for "
             "sequences, level-by-level batching for trees, a padded minibatch decoded a step at a time with "
             "masked attention for seq2seq; `torch-eager`: node by node).")
    L.append("")
    L.append("| workload | per graph | hidden | threads | dybatch (best) | libtorch (best) | ratio | target |")
    L.append("| --- | ---: | ---: | ---: | --- | --- | ---: | --- |")
    for (task, batch, hidden, threads, updates), rs in grouped(rows):
        d, t = best(rs, "dybatch"), best(rs, "torch")
        if not d or not t:
            continue
        ratio = d["items_per_s"] / t["items_per_s"]
        target = targets.get((task, batch))
        verdict = ("≥ %.1f×: %s" % (target, "met" if ratio >= target else "**not met**")) if target else ""
        L.append("| %s | %d | %d | %d | %s %.0f %s/s | %s %.0f | %.2f× | %s |" %
                 (task, batch, hidden, threads, d["program"].replace("dybatch-", ""), d["items_per_s"], d["unit"],
                  t["program"].replace("torch-", ""), t["items_per_s"], ratio, verdict))
    L.append("")

    # DyNet's figures and graph construction are one-thread ones: a run of other thread counts says so.
    if not any(r["threads"] == 1 for r in rows):
        L.append("This run has no one-thread figures, so neither DyNet's figures nor graph construction are compared here.")
        L.append("")
    else:
        L.append("## DyNet's benchmark tasks, one thread, beside DyNet 2.1's figures")
        L.append("")
        L.append("DyNet's figures are BENCHMARKS.md's (measured on another day, dense updates, partly with another job "
                 "on the other core), so compare them loosely; the ratios above are the same-run ones.")
        L.append("")
        L.append("| task (throughput/s) | per graph | sequential | agenda | depth | DyNet no autobatch / autobatch |")
        L.append("| --- | ---: | ---: | ---: | ---: | --- |")
        for (task, batch, hidden, threads, updates), rs in grouped(rows):
            if threads != 1 or updates != "sgd" or task not in DYNET_TASKS:
                continue
            cells = []
            for engine in ("sequential", "agenda", "depth"):
                r = next((r for r in rs if r["program"] == "dybatch-" + engine), None)
                cells.append("%.0f" % r["items_per_s"] if r else "")
            dynet = DYNET.get((task, batch))
            L.append("| %s (%s) | %d | %s | %s |" % (task, rs[0]["unit"], batch, " | ".join(cells),
                                                     "%d / %d" % dynet if dynet else ""))
        L.append("")

        write_dynet_settings(L, rows)

        L.append("## Graph construction")
        L.append("")
        L.append("| task | per graph | hidden | engine | nodes per graph | construction per step | share of the step |")
        L.append("| --- | ---: | ---: | --- | ---: | ---: | ---: |")
        for r in sorted(rows, key=lambda r: (r["task"], r["batch"], r["hidden"], r["program"])):
            if r["program"].startswith("dybatch") and r["threads"] == 1 and r["nodes_per_graph"] > 0:
                L.append("| %s | %d | %d | %s | %.0f | %.3f ms | %.1f%% |" %
                         (r["task"], r["batch"], r["hidden"], r["program"].replace("dybatch-", ""), r["nodes_per_graph"],
                          r["build_ms"], 100 * r["build_share"]))
        L.append("")

    L.append("## Every figure")
    L.append("")
    L.append("| task | per graph | hidden | threads | program | throughput (median) | min..max | GFLOP/s | % of GEMM peak | ms a step |")
    L.append("| --- | ---: | ---: | ---: | --- | ---: | --- | ---: | ---: | ---: |")
    for (task, batch, hidden, threads, updates), rs in grouped(rows):
        for r in rs:
            L.append("| %s | %d | %d | %d | %s | %.1f %s/s | %.0f..%.0f | %.2f | %.1f%% | %.2f |" %
                     (task, batch, hidden, threads, r["program"] + ("" if updates == "sgd" else ", Adam " + updates),
                      r["items_per_s"], r["unit"], r["min"], r["max"], r["gflops"], 100 * r["peak_share"],
                      r["step_ms"]))
    L.append("")

    L.append("## Plots")
    L.append("")
    for title, name in figures:
        L.append("### %s" % title)
        L.append("")
        L.append("![%s](%s)" % (title, name))
        L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))
