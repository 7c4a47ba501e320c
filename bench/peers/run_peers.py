#!/usr/bin/python3
"""Every peer row for one CPU in one command: ONNX Runtime (ort_bert.py) and
llama.cpp (llama_bench.py), each in interleaved rounds with libamxqa's
shipped-model answer on the same core, added to the CPU's bench JSON and its
Markdown. Run it after `amxqa-bench --out-dir bench/results` wrote the JSON:

  AMXQA_DATA=../shared/data /usr/bin/python3 bench/peers/run_peers.py \\
      --bench-json bench/results/CPU.json --core 0 \\
      --ort-node /tmp/ort/node_modules/onnxruntime-node \\
      --llama-bench PATH/llama-bench [--llama-bench-avx2 PATH/llama-bench]

It runs, in order: ONNX Runtime on the CPU as it is; where the CPU has
AVX-512 (F/BW/VL/DQ), ONNX Runtime again under the avx2 CPUID mask
(isa_mask.c), which libamxqa's AVX2 backend is compared with; where it has
AMX, once more under the avx512 mask; llama.cpp (--llama-bench, a native
build); and, given --llama-bench-avx2 (a build without AVX-512, see
llama_bench.py) on a CPU with AVX-512, llama.cpp's Q4_0 and Q8_0 under the
avx2 mask. --dry-run prints the commands instead. Standard library only."""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def cpu_flags(path="/proc/cpuinfo"):
    """The first processor's flags."""
    with open(path) as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def commands(args, flags):
    """The peer scripts' command lines for a CPU with these /proc/cpuinfo flags."""
    py = sys.executable
    common = ["--core", str(args.core), "--bench-json", args.bench_json,
              "--amxqa-bench", args.amxqa_bench, "--rounds", str(args.rounds)]
    ort = [py, os.path.join(HERE, "ort_bert.py"), "--ort-node", args.ort_node] + common
    llama = [py, os.path.join(HERE, "llama_bench.py")] + common
    avx512 = {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags
    amx = {"amx_tile", "amx_int8"} <= flags
    cmds = []
    if args.ort_node:
        cmds.append(ort)
        if avx512:
            cmds.append(ort + ["--isa-mask", "avx2"])
        if amx:
            cmds.append(ort + ["--isa-mask", "avx512"])
    if args.llama_bench:
        cmds.append(llama + ["--llama-bench", args.llama_bench])
    if args.llama_bench_avx2 and avx512:
        cmds.append(llama + ["--llama-bench", args.llama_bench_avx2, "--isa-mask", "avx2",
                             "--types", "q4_0,q8_0"])
    return cmds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench-json", required=True, help="this CPU's amxqa-bench result JSON")
    ap.add_argument("--core", type=int, default=0)
    ap.add_argument("--amxqa-bench", default="build/bin/amxqa-bench")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--ort-node", help="the onnxruntime-node package folder (none: no ONNX Runtime rows)")
    ap.add_argument("--llama-bench", help="llama.cpp's llama-bench, a native build (none: no llama.cpp rows)")
    ap.add_argument("--llama-bench-avx2", help="llama-bench built without AVX-512 (llama_bench.py)")
    ap.add_argument("--dry-run", action="store_true", help="print the commands only")
    args = ap.parse_args(argv)
    if not args.ort_node and not args.llama_bench:
        ap.error("nothing to run: give --ort-node and/or --llama-bench")
    for cmd in commands(args, cpu_flags()):
        print("+ " + " ".join(cmd), flush=True)
        if not args.dry_run:
            subprocess.run(cmd, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
