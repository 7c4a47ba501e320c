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
Re-run the peer scripts after `amxqa-bench report` rewrites the JSON."""
import json
import os


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
    md = os.path.splitext(bench_json)[0] + ".md"
    if os.path.exists(md):
        with open(md) as f:
            text = f.read()
        with open(md, "w") as f:
            f.write(replace_section(text, peers_markdown(doc)))
    for k, v in summary["libamxqa_speedup"].items():
        if k.split("_vs_", 1)[1] in rows:
            print(f"libamxqa {k}: {v:.2f}x")
    return summary["libamxqa_speedup"]


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
    fastest = {}
    for k, v in doc.get("peers", {}).items():
        peer = v.get("peer", k)
        lines.append(_row([f"{peer} {v.get('model', '')}", v.get("weights", ""),
                           v.get("work", f"{v.get('tokens', '?')}-token prompt"), _clock(v),
                           f"{v['p50_ms']:.2f}"] + [f"{v['p50_ms'] / ours[isa]:.2f}x" for isa in isas]))
        if peer not in fastest or v["p50_ms"] < fastest[peer]["p50_ms"]:
            fastest[peer] = v
    lines.append("")
    for peer, v in fastest.items():
        vs = ", ".join(f"{isa} {v['p50_ms'] / ours[isa]:.2f}x" for isa in isas)
        lines.append(f"- Fastest {peer}: {v.get('weights', '')}, {v['p50_ms']:.2f} ms"
                     + (f"; libamxqa {vs}" if vs else ""))
    return "\n".join(lines) + "\n"
