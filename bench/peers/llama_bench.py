#!/usr/bin/python3
"""Times llama.cpp beside libamxqa on one pinned core and adds the results to
an amxqa-bench result JSON as peer rows (bench/peers/peer_rows.py).

For each weight type it writes a random-weight GGUF of the default model's
shape (bench/peers/llama_shape_gguf.py) to a temporary folder and runs

  taskset -c CORE llama-bench -m FILE -t 1 -p 208 -n 5 -r 10 -o json -v

One answer is the 208-token prompt's prefill plus 5 generated tokens (an
extractive answer's span needs no generation; the 5 tokens stand for the short
answer a generative model would write). A row's p50_ms is the median prefill
plus the median generation of llama-bench's repetitions, mean_ms the sum of
its means; that clock is llama-bench's own wall clock, which on an idle pinned
core equals the CPU time that libamxqa's answers are timed by. cpu_mean_ms is
the CPU time per answer (a second llama-bench run of one repetition subtracted
from the timed one), which a busy core does not inflate. weight_buffers are
where llama.cpp put the weights (its load log); "AMX", which the weights
column then shows, is its AMX buffer: in b4747 Q4_0 and Q8_0 are repacked
there for the tiles, F16 sits there for AVX-512 kernels (its source: "amx
kernels will be added") and BF16 stays in a plain CPU buffer.

llama.cpp is built by hand outside this repository and never committed (a
Release build of its llama-bench target, CPU backend, tuned for the CPU with
GGML_NATIVE); the row's peer names its build. Then:

  /usr/bin/python3 bench/peers/llama_bench.py --llama-bench PATH/TO/llama-bench \\
      --core 0 --bench-json bench/results/CPU.json

Without --bench-json it only prints the rows. Standard library only.

For an AVX2-only (or AMX-less) row on a bigger CPU, build llama.cpp for that
level (GGML_NATIVE=OFF with GGML_AVX2=ON, GGML_FMA=ON, GGML_F16C=ON and
GGML_AVX512=OFF; a native build runs AVX-512 without asking) and pass
--isa-mask avx2: it also hides the levels above from llama.cpp's CPUID
(bench/peers/isa_mask.c) and suffixes the rows _avx2.

With --amxqa-bench build/bin/amxqa-bench (AMXQA_DATA set as for the bench) it
then runs --rounds rounds of libamxqa's shipped-model answer and one
llama-bench run per weight type alternately on the same core and adds the
medians of the rounds' own ratios to summary.libamxqa_speedup_interleaved, as
ort_bert.py does (with --isa-mask, only libamxqa's backend of that level)."""
import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile

import isa_mask
import llama_shape_gguf
import peer_rows


def answer_row(results, prompt, gen):
    """One peer row from llama-bench's -o json list (a prefill test of `prompt`
    tokens and a generation test of `gen`)."""
    def test(n_prompt, n_gen):
        for t in results:
            if t.get("n_prompt") == n_prompt and t.get("n_gen") == n_gen:
                return t
        raise ValueError(f"llama-bench output has no test with n_prompt {n_prompt}, n_gen {n_gen}")

    pp, tg = test(prompt, 0), test(0, gen)
    ms = lambda ns: ns / 1e6
    p50 = ms(statistics.median(pp["samples_ns"]) + statistics.median(tg["samples_ns"]))
    return {
        "p50_ms": round(p50, 4),
        "mean_ms": round(ms(pp["avg_ns"] + tg["avg_ns"]), 4),
        "min_ms": round(ms(min(pp["samples_ns"]) + min(tg["samples_ns"])), 4),
        "wall_p50_ms": round(p50, 4),
        "runs": len(pp["samples_ns"]),
        "tokens": prompt,
        "gen_tokens": gen,
        "prefill_tok_s": round(pp["avg_ts"], 1),
        "gen_tok_s": round(tg["avg_ts"], 1),
        "peer": f"llama.cpp b{pp.get('build_number', '?')} ({pp.get('build_commit', '?')})",
        "backends": pp.get("backends", ""),
        "threads": pp.get("n_threads", 1),
        "work": f"{prompt}-token prefill + {gen} generated",
        "clock": "wall",
    }


def run_llama_bench(cmd_prefix, gguf, args, reps):
    """llama-bench's -o json list, its log and the CPU seconds it used. -v only
    logs while loading (the buffer lines weight_buffers reads), not per run."""
    cmd = cmd_prefix + [args.llama_bench, "-m", gguf, "-t", "1", "-p", str(args.prompt),
                        "-n", str(args.gen), "-r", str(reps), "-o", "json", "-v"]
    cpu = lambda u: u.ru_utime + u.ru_stime
    before = cpu(resource.getrusage(resource.RUSAGE_CHILDREN))
    done = subprocess.run(cmd, capture_output=True, text=True, env=getattr(args, "env", None))
    used = cpu(resource.getrusage(resource.RUSAGE_CHILDREN)) - before
    if done.returncode != 0 or "[" not in done.stdout:
        tail = "\n".join(done.stderr.splitlines()[-5:])
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}:\n{tail}")
    return json.loads(done.stdout[done.stdout.index("["):]), done.stderr, used


def weight_buffers(log):
    """The buffer types llama.cpp loaded the weights into (e.g. AMX, CPU_Mapped)."""
    return re.findall(r"load_tensors: +(\S+) model buffer size", log)


def time_gguf(cmd_prefix, gguf, args):
    """One peer row for one GGUF: llama-bench with args.reps repetitions, then
    once more with one, whose CPU time (loading, warm-up, one repetition)
    subtracted from the first run's gives cpu_mean_ms, a CPU-time check on the
    wall-clock figures that a busy core would inflate."""
    results, log, cpu_all = run_llama_bench(cmd_prefix, gguf, args, args.reps)
    row = answer_row(results, args.prompt, args.gen)
    if args.reps > 1:
        cpu_one = run_llama_bench(cmd_prefix, gguf, args, 1)[2]
        row["cpu_mean_ms"] = round(max(cpu_all - cpu_one, 0.0) / (args.reps - 1) * 1e3, 4)
    row["weight_buffers"] = weight_buffers(log)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llama-bench", required=True, help="the llama-bench executable")
    ap.add_argument("--core", type=int, default=1, help="pin to this core (-1: no pinning)")
    ap.add_argument("--types", default="q4_0,q8_0,bf16,f16",
                    help="weight types, comma-separated (of %s)" % ", ".join(llama_shape_gguf.GGML_TYPE))
    ap.add_argument("--ffn", type=int, default=640, help="FFN width (416: the same FLOPs as ReLU² at 640)")
    ap.add_argument("--prompt", type=int, default=208, help="prompt tokens (the shipped model's mean)")
    ap.add_argument("--gen", type=int, default=5, help="generated tokens")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--bench-json", help="amxqa-bench result JSON to add the peer rows to")
    ap.add_argument("--keep", help="write the .gguf files into this folder")
    ap.add_argument("--isa-mask", choices=isa_mask.LEVELS,
                    help="hide the instruction sets above this level from llama.cpp (bench/peers/isa_mask.c)")
    ap.add_argument("--amxqa-bench", help="amxqa-bench binary: also run --rounds interleaved rounds of "
                    "libamxqa's shipped-model answer and llama-bench on the same core, and add their "
                    "median ratios to --bench-json (summary.libamxqa_speedup_interleaved)")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    args.env = None
    types = [t for t in args.types.split(",") if t]
    for t in types:
        if t not in llama_shape_gguf.GGML_TYPE:
            ap.error(f"--types: {t} is not one of {', '.join(llama_shape_gguf.GGML_TYPE)}")
    if not os.access(args.llama_bench, os.X_OK):
        ap.error(f"--llama-bench: {args.llama_bench} is not an executable")
    prefix = ["taskset", "-c", str(args.core)] if args.core >= 0 else []
    shape = llama_shape_gguf.Shape(ffn=args.ffn)
    suffix = ("" if args.ffn == 640 else f"_ffn{args.ffn}") + (f"_{args.isa_mask}" if args.isa_mask else "")
    rows, ggufs = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        if args.isa_mask:
            args.env = isa_mask.prepare(args.isa_mask, tmp)
        where = args.keep or tmp
        os.makedirs(where, exist_ok=True)
        for t in types:
            gguf = os.path.join(where, f"shape-{t}{suffix}.gguf")
            llama_shape_gguf.write_gguf(gguf, t, shape)
            row = time_gguf(prefix, gguf, args)
            row.update(model=f"llama d{shape.d} L{shape.layers} FFN{shape.ffn} (default model's shape)"
                       + (f", {args.isa_mask.upper()} build (CPUID masked)" if args.isa_mask else ""),
                       weights=t.upper() + (" (AMX buffer)" if "AMX" in row["weight_buffers"] else ""),
                       core=args.core)
            if args.isa_mask:
                row["isa_mask"] = args.isa_mask
            rows[f"llama_cpp_{t}{suffix}"], ggufs[f"llama_cpp_{t}{suffix}"] = row, gguf
            print(f"llama.cpp {t:5s}: one answer p50 {row['p50_ms']:.3f} ms, mean {row['mean_ms']:.3f} ms "
                  f"CPU mean {row.get('cpu_mean_ms', float('nan')):.3f} ms "
                  f"(prefill {row['prefill_tok_s']:.0f} tok/s, generation {row['gen_tok_s']:.0f} tok/s; "
                  f"{args.reps} runs, core {args.core}, {row['peer']})")
        if args.bench_json:
            peer_rows.add_peers(args.bench_json, rows)
        if args.amxqa_bench and args.bench_json:
            backends = (args.isa_mask,) if args.isa_mask else None
            medians, rounds = peer_rows.interleave(
                args.rounds, lambda: peer_rows.amxqa_answer_ms(args.amxqa_bench, args.core, backends),
                lambda: {name: answer_row(run_llama_bench(prefix, g, args, args.reps)[0], args.prompt,
                                          args.gen)["p50_ms"] for name, g in ggufs.items()})
            peer_rows.add_interleaved(args.bench_json, medians, rounds, args.core)


if __name__ == "__main__":
    sys.exit(main())
