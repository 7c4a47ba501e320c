"""Adds peer timings to an amxqa-bench result JSON and its Markdown, for every
script in bench/peers/ (ort_bert.py, llama_bench.py). Standard library only.

A peer row is a dict with at least p50_ms (one answer's time, the figure every
speed-up uses), mean_ms, min_ms, wall_p50_ms, runs, tokens, peer, model,
weights, threads, core, plus work (what one timed run is) and clock ("cpu":
the process's CPU time, as amxqa-bench times an answer; "wall": the peer's own
wall clock, the same on an idle pinned core; such a row may add cpu_mean_ms,
its mean CPU time, which the table shows beside it). The JSON gets "peers"
(every row so far, keyed by name), summary.peer_ms and
summary.libamxqa_speedup (<backend>_vs_<peer>: peer ms / libamxqa's
shipped-model p50 ms, every backend but scalar), which `amxqa-bench compare`
lists per CPU; the Markdown beside it gets its "## Peers" section rewritten.
Re-run the peer scripts after `amxqa-bench report` rewrites the JSON.

Interleaved rounds (interleave(), add_interleaved()): a shared machine's speed
moves within minutes, so a ratio of two runs taken apart can drift; a peer
script given the amxqa-bench binary alternates one libamxqa run
(amxqa_answer_ms) and one peer run per round on the same core and keeps each
round's ratio: summary.libamxqa_speedup_interleaved holds their medians."""
import json
import os
import statistics
import subprocess
import tempfile


def _backends(ours):
    return [isa for isa, ms in ours.items() if isa != "scalar" and ms]


def speedups(doc):
    """{<backend>_vs_<peer>: peer ms / libamxqa ms} over every row in doc["peers"]."""
    ours = doc.get("summary", {}).get("shipped_model_p50_ms", {})
    return {f"{isa}_vs_{k}": round(v["p50_ms"] / ours[isa], 4)
            for isa in _backends(ours) for k, v in doc.get("peers", {}).items()}


def add_peers(bench_json, rows):
    """Merges rows into bench_json (rows of the same name are replaced),
    recomputes the summary's peer keys, rewrites the Markdown's Peers section
    and prints libamxqa's speed-ups over the new rows. Returns all speed-ups."""
    with open(bench_json) as f:
        doc = json.load(f)
    doc.setdefault("peers", {}).update(rows)
    summary = doc.setdefault("summary", {})
    summary["peer_ms"] = {k: round(v["p50_ms"], 4) for k, v in doc["peers"].items()}
    summary["libamxqa_speedup"] = speedups(doc)
    with open(bench_json, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    rewrite_markdown(bench_json, doc)
    for k, v in summary["libamxqa_speedup"].items():
        if k.split("_vs_", 1)[1] in rows:
            print(f"libamxqa {k}: {v:.2f}x")
    return summary["libamxqa_speedup"]


def amxqa_answer_ms(amxqa_bench, core, backends=None):
    """One amxqa-bench run of the shipped model's BM_default_model_answer_<isa>
    rows (the backends named, default every one but scalar that this CPU
    runs): {isa: p50 ms}."""
    names = "|".join(backends or ("avx2", "avx512", "amx"))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "answer.json")
        cmd = [amxqa_bench, "--no-report", f"--benchmark_filter=BM_default_model_answer_({names})/",
               f"--benchmark_out={out}", "--benchmark_out_format=json"]
        if core >= 0:
            cmd = ["taskset", "-c", str(core)] + cmd
        run = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if run.returncode:
            raise RuntimeError(f"{' '.join(cmd)} exited with {run.returncode}: {run.stderr[-2000:]}")
        with open(out) as f:
            rows = json.load(f)["benchmarks"]
    return {r["label"]: r["p50_ms"] for r in rows
            if r.get("run_type") == "iteration" and "p50_ms" in r and not r.get("error_occurred")}


def interleave(rounds, ours, peers):
    """Alternates ours() ({isa: ms}) and peers() ({peer: ms}) `rounds` times.
    Returns (medians, per_round): {<isa>_vs_<peer>: median of that round's
    peer ms / our ms}, and each round's {"libamxqa": …, "peers": …}."""
    per_round = [{"libamxqa": ours(), "peers": peers()} for _ in range(rounds)]
    ratios = {}
    for r in per_round:
        for isa, ms in r["libamxqa"].items():
            for peer, pms in r["peers"].items():
                ratios.setdefault(f"{isa}_vs_{peer}", []).append(pms / ms)
    return {k: round(statistics.median(v), 4) for k, v in ratios.items()}, per_round


def add_interleaved(bench_json, medians, per_round, core):
    """Merges interleave()'s result into bench_json: summary.
    libamxqa_speedup_interleaved (replacing keys of the same name) and
    "interleaved" (the rounds, by the peers they timed), and lists the medians
    in its Markdown's Peers section. Prints the medians."""
    with open(bench_json) as f:
        doc = json.load(f)
    doc.setdefault("summary", {}).setdefault("libamxqa_speedup_interleaved", {}).update(medians)
    key = "+".join(sorted(per_round[0]["peers"])) if per_round else "none"
    doc.setdefault("interleaved", {})[key] = {"core": core, "rounds": per_round}
    with open(bench_json, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    rewrite_markdown(bench_json, doc)
    for k, v in medians.items():
        print(f"libamxqa {k}: {v:.2f}x (median of {len(per_round)} interleaved rounds)")


def rewrite_markdown(bench_json, doc):
    """Rewrites the Peers section of the Markdown beside bench_json, if there is one."""
    md = os.path.splitext(bench_json)[0] + ".md"
    if os.path.exists(md):
        with open(md) as f:
            text = f.read()
        with open(md, "w") as f:
            f.write(replace_section(text, peers_markdown(doc)))


def replace_section(text, section):
    """text with its "## Peers" section (to the end: it is written last) replaced by section."""
    head = text.split("\n## Peers\n")[0].rstrip("\n")
    return head + "\n\n" + section


def _row(cells):
    return "| " + " | ".join(cells) + " |"


def _clock(v):
    clock = v.get("clock", "cpu")
    return clock + (f" (CPU mean {v['cpu_mean_ms']:.2f} ms)" if "cpu_mean_ms" in v else "")


def peers_markdown(doc):
    ours = doc.get("summary", {}).get("shipped_model_p50_ms", {})
    isas = _backends(ours)
    lines = ["## Peers", "",
             "Peers on the same pinned core, one thread (bench/peers/: ort_bert.py times ONNX Runtime, "
             "llama_bench.py llama.cpp's llama-bench); libamxqa is the shipped model's p50 answer to a "
             "208-token prompt (BM_default_model_answer_<backend>), CPU time. Speed-up = peer ms / "
             "libamxqa ms. Clock cpu: the peer's CPU time; wall: its own wall clock (the same on an idle core; "
             "a busy one inflates it, not the CPU mean beside it).", "",
             _row(["peer", "weights", "one run", "clock", "p50 ms"]
                  + [f"libamxqa {isa} speed-up" for isa in isas]),
             _row(["---"] * (5 + len(isas)))]
    fastest = {}  # per peer and ISA mask: a masked row is another CPU's peer
    for k, v in doc.get("peers", {}).items():
        peer = v.get("peer", k)
        lines.append(_row([f"{peer} {v.get('model', '')}", v.get("weights", ""),
                           v.get("work", f"{v.get('tokens', '?')}-token prompt"), _clock(v),
                           f"{v['p50_ms']:.2f}"] + [f"{v['p50_ms'] / ours[isa]:.2f}x" for isa in isas]))
        key = (peer, v.get("isa_mask"))
        if key not in fastest or v["p50_ms"] < fastest[key]["p50_ms"]:
            fastest[key] = v
    lines.append("")
    for (peer, mask), v in fastest.items():
        vs = ", ".join(f"{isa} {v['p50_ms'] / ours[isa]:.2f}x" for isa in isas)
        lines.append(f"- Fastest {peer}" + (f" as on {mask.upper()} (CPUID masked)" if mask else "")
                     + f": {v.get('weights', '')}, {v['p50_ms']:.2f} ms" + (f"; libamxqa {vs}" if vs else ""))
    interleaved = doc.get("summary", {}).get("libamxqa_speedup_interleaved", {})
    if interleaved:
        lines += ["", "Interleaved rounds (libamxqa's answer and the peer alternately on the same core; "
                  "the median of each round's own peer ms / libamxqa ms, the figure to quote on a shared "
                  "machine):", ""]
        rounds = {peer: len(r.get("rounds", [])) for group, r in doc.get("interleaved", {}).items()
                  for peer in group.split("+")}
        for k, v in interleaved.items():
            isa, peer = k.split("_vs_", 1)
            n = rounds.get(peer)
            lines.append(f"- libamxqa {isa} vs {peer}: {v:.2f}x" + (f" ({n} rounds)" if n else ""))
    return "\n".join(lines) + "\n"
